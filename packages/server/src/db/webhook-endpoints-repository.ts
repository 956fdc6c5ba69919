// Webhook endpoints of a merchant (docs/webhooks.md): url, the apiKey sent as Authorization, the 64-hex
// hmacKey. Both secrets are stored encrypted (security/keyring.ts) and leave this module in clear only
// when they are created or rotated, or when the merchant asks to see them.

import type { Transaction } from "kysely";
import { newHmacKey, newWebhookApiKey, newWebhookId } from "../ids.ts";
import { apiKeyContext, hmacKeyContext, type SecretKeyring } from "../security/keyring.ts";
import type { Database } from "./connect.ts";
import type { DB } from "./schema.ts";

export interface WebhookEndpoint {
  webhookId: string;
  merchantId: string;
  url: string;
  enabled: boolean;
  /** Whether it takes Dispute events (docs/webhooks.md#disputes); off unless asked for. */
  disputeEvents: boolean;
  /** The apiKey with all but its last 4 characters hidden. */
  maskedApiKey: string;
  maskedHmacKey: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookSecrets {
  apiKey: string;
  hmacKey: string;
}

type EndpointRow = {
  id: string;
  merchant_id: string;
  url: string;
  enabled: boolean;
  dispute_events: boolean;
  api_key: string;
  hmac_key: string;
  created_at: Date;
  updated_at: Date;
};

/** Enough to recognise a secret, not to use it: the last 4 characters of a long one, nothing of a short one. */
export function mask(secret: string): string {
  return secret.length >= 16 ? `************${secret.slice(-4)}` : "********";
}

function present(row: EndpointRow, keyring: SecretKeyring): WebhookEndpoint {
  const secrets = decryptSecrets(row, keyring);
  return {
    webhookId: row.id,
    merchantId: row.merchant_id,
    url: row.url,
    enabled: row.enabled,
    disputeEvents: row.dispute_events,
    maskedApiKey: mask(secrets.apiKey),
    maskedHmacKey: mask(secrets.hmacKey),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function decryptSecrets(row: { id: string; api_key: string; hmac_key: string }, keyring: SecretKeyring): WebhookSecrets {
  return { apiKey: keyring.decrypt(row.api_key, apiKeyContext(row.id)), hmacKey: keyring.decrypt(row.hmac_key, hmacKeyContext(row.id)) };
}

/** Creates an endpoint and returns it with both secrets in clear (shown to the merchant once here). */
export async function createWebhookEndpoint(
  db: Database,
  keyring: SecretKeyring,
  merchantId: string,
  input: { url: string; apiKey?: string | undefined; disputeEvents?: boolean | undefined },
): Promise<{ endpoint: WebhookEndpoint; secrets: WebhookSecrets }> {
  const id = newWebhookId();
  const secrets = { apiKey: input.apiKey ?? newWebhookApiKey(), hmacKey: newHmacKey() };
  const row = await db
    .insertInto("webhook_endpoints")
    .values({
      id,
      merchant_id: merchantId,
      url: input.url,
      api_key: keyring.encrypt(secrets.apiKey, apiKeyContext(id)),
      hmac_key: keyring.encrypt(secrets.hmacKey, hmacKeyContext(id)),
      dispute_events: input.disputeEvents ?? false,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { endpoint: present(row, keyring), secrets };
}

export async function listWebhookEndpoints(db: Database, keyring: SecretKeyring, merchantId: string): Promise<WebhookEndpoint[]> {
  const rows = await db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map((row) => present(row, keyring));
}

/** Both secrets in clear, for a merchant who asks to see them (portal "reveal"). */
export async function revealWebhookSecrets(
  db: Database,
  keyring: SecretKeyring,
  merchantId: string,
  webhookId: string,
): Promise<WebhookSecrets | undefined> {
  const row = await db
    .selectFrom("webhook_endpoints")
    .select(["id", "api_key", "hmac_key"])
    .where("id", "=", webhookId)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return row && decryptSecrets(row, keyring);
}

/**
 * A new hmacKey; the old one stops at once. Messages already queued are signed when they are
 * sent, so their retries carry the new key's signature too.
 */
export async function rotateWebhookHmacKey(
  db: Database,
  keyring: SecretKeyring,
  merchantId: string,
  webhookId: string,
): Promise<{ endpoint: WebhookEndpoint; hmacKey: string } | undefined> {
  const hmacKey = newHmacKey();
  const row = await db
    .updateTable("webhook_endpoints")
    .set({ hmac_key: keyring.encrypt(hmacKey, hmacKeyContext(webhookId)), updated_at: new Date() })
    .where("id", "=", webhookId)
    .where("merchant_id", "=", merchantId)
    .returningAll()
    .executeTakeFirst();
  return row && { endpoint: present(row, keyring), hmacKey };
}

export async function updateWebhookEndpoint(
  db: Database,
  keyring: SecretKeyring,
  merchantId: string,
  webhookId: string,
  changes: { url?: string | undefined; apiKey?: string | undefined; enabled?: boolean | undefined; disputeEvents?: boolean | undefined },
): Promise<WebhookEndpoint | undefined> {
  const row = await db
    .updateTable("webhook_endpoints")
    .set({
      updated_at: new Date(),
      ...(changes.url !== undefined ? { url: changes.url } : {}),
      ...(changes.apiKey !== undefined ? { api_key: keyring.encrypt(changes.apiKey, apiKeyContext(webhookId)) } : {}),
      ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}),
      ...(changes.disputeEvents !== undefined ? { dispute_events: changes.disputeEvents } : {}),
    })
    .where("id", "=", webhookId)
    .where("merchant_id", "=", merchantId)
    .returningAll()
    .executeTakeFirst();
  return row && present(row, keyring);
}

/**
 * Removes an endpoint with its delivery log and breaker state (attempts, deliveries, breaker, then
 * the endpoint, in one transaction). Deliveries still owed to it are dropped: a deleted endpoint is owed nothing.
 */
export async function deleteWebhookEndpoint(db: Database, merchantId: string, webhookId: string): Promise<boolean> {
  return db.transaction().execute((trx) => deleteWebhookEndpointIn(trx, merchantId, webhookId));
}

/** As deleteWebhookEndpoint, in the caller's transaction (with the deletion's audit-log entry). */
export async function deleteWebhookEndpointIn(trx: Transaction<DB>, merchantId: string, webhookId: string): Promise<boolean> {
  const owned = await trx
    .selectFrom("webhook_endpoints")
    .select("id")
    .where("id", "=", webhookId)
    .where("merchant_id", "=", merchantId)
    .forUpdate()
    .executeTakeFirst();
  if (!owned) return false;
  const deliveries = trx.selectFrom("webhook_deliveries").select("id").where("endpoint_id", "=", webhookId);
  await trx.deleteFrom("webhook_attempts").where("delivery_id", "in", deliveries).execute();
  await trx.deleteFrom("webhook_deliveries").where("endpoint_id", "=", webhookId).execute();
  // Its circuit breaker goes with it (the row refers to the endpoint).
  await trx.deleteFrom("webhook_endpoint_health").where("endpoint_id", "=", webhookId).execute();
  await trx.deleteFrom("webhook_endpoints").where("id", "=", webhookId).execute();
  return true;
}
