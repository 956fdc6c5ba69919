// A merchant's webhook endpoints changed by a person or the operator: add, change (URL, the
// Authorization value, enabled), delete, reveal and rotate the secrets. One place for each, called
// by the portal and the admin API alike, each recorded in the audit log with the change in one
// transaction. The routes check their input (URL guard, Authorization value) before they call.
import type { Database } from "../db/connect.ts";
import {
  createWebhookEndpoint,
  deleteWebhookEndpointIn,
  revealWebhookSecrets,
  rotateWebhookHmacKey,
  updateWebhookEndpoint,
  type WebhookEndpoint,
  type WebhookSecrets,
} from "../db/webhook-endpoints-repository.ts";
import type { Actor } from "../domain/audit/actor.ts";
import { changedFields, urlHost } from "../domain/audit/entry.ts";
import type { SecretKeyring } from "../security/keyring.ts";
import { notifyWebhookWorker } from "../webhooks/outbox.ts";
import { changeAndRecord } from "./audit.ts";

export interface WebhookEndpointDeps {
  db: Database;
  keyring: SecretKeyring;
}

/** Who asks, for which merchant's endpoint. */
export interface EndpointRequest {
  merchantId: string;
  actor: Actor;
}

const object = (id: string) => ({ type: "webhook-endpoint", id }) as const;

/** A new endpoint with both secrets in clear, to be shown once. */
export function addEndpoint(
  deps: WebhookEndpointDeps,
  { merchantId, actor }: EndpointRequest,
  input: { url: string; apiKey?: string | undefined; disputeEvents?: boolean | undefined },
): Promise<{ endpoint: WebhookEndpoint; secrets: WebhookSecrets }> {
  return changeAndRecord(
    deps.db,
    (trx) => createWebhookEndpoint(trx, deps.keyring, merchantId, input),
    (created) => ({
      merchantId,
      actor,
      action: "webhook.create",
      object: object(created.endpoint.webhookId),
      details: { host: urlHost(input.url), ...(input.disputeEvents ? { disputeEvents: true } : {}) },
    }),
  );
}

/** Changes the URL, the Authorization value and/or whether it takes Dispute events; undefined when the merchant has no such endpoint. */
export function changeEndpoint(
  deps: WebhookEndpointDeps,
  { merchantId, actor }: EndpointRequest,
  webhookId: string,
  changes: { url?: string | undefined; apiKey?: string | undefined; disputeEvents?: boolean | undefined },
): Promise<WebhookEndpoint | undefined> {
  return changeAndRecord(
    deps.db,
    (trx) => updateWebhookEndpoint(trx, deps.keyring, merchantId, webhookId, changes),
    (found) =>
      found && { merchantId, actor, action: "webhook.update", object: object(webhookId), details: { fields: changedFields(changes) } },
  );
}

/**
 * Enables or disables an endpoint (idempotent). Deliveries held while it was disabled go out as
 * soon as it is enabled, so the worker is woken. Undefined when the merchant has no such endpoint.
 */
export async function setEndpointEnabled(
  deps: WebhookEndpointDeps,
  { merchantId, actor }: EndpointRequest,
  webhookId: string,
  enabled: boolean,
): Promise<WebhookEndpoint | undefined> {
  const endpoint = await changeAndRecord(
    deps.db,
    (trx) => updateWebhookEndpoint(trx, deps.keyring, merchantId, webhookId, { enabled }),
    (found) => found && { merchantId, actor, action: enabled ? "webhook.enable" : "webhook.disable", object: object(webhookId) },
  );
  if (endpoint && enabled) notifyWebhookWorker();
  return endpoint;
}

/** Deletes an endpoint with its delivery log; false when the merchant has no such endpoint. */
export function deleteEndpoint(deps: WebhookEndpointDeps, { merchantId, actor }: EndpointRequest, webhookId: string): Promise<boolean> {
  return changeAndRecord(
    deps.db,
    (trx) => deleteWebhookEndpointIn(trx, merchantId, webhookId),
    (done) => (done ? { merchantId, actor, action: "webhook.delete", object: object(webhookId) } : undefined),
  );
}

/** Both secrets in clear. A reveal changes nothing, but who saw the secrets is worth keeping as much as who replaced them. */
export function revealEndpointSecrets(
  deps: WebhookEndpointDeps,
  { merchantId, actor }: EndpointRequest,
  webhookId: string,
): Promise<WebhookSecrets | undefined> {
  return changeAndRecord(
    deps.db,
    (trx) => revealWebhookSecrets(trx, deps.keyring, merchantId, webhookId),
    (done) => done && { merchantId, actor, action: "webhook.secret-reveal", object: object(webhookId) },
  );
}

/** A new HMAC key, returned once; the old one stops at once. */
export function rotateEndpointHmacKey(
  deps: WebhookEndpointDeps,
  { merchantId, actor }: EndpointRequest,
  webhookId: string,
): Promise<{ endpoint: WebhookEndpoint; hmacKey: string } | undefined> {
  return changeAndRecord(
    deps.db,
    (trx) => rotateWebhookHmacKey(trx, deps.keyring, merchantId, webhookId),
    (done) => done && { merchantId, actor, action: "webhook.secret-rotate", object: object(webhookId) },
  );
}
