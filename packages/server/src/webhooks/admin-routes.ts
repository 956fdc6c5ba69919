// /admin/v1 webhook endpoints and the delivery log (SPEC §5, issue #5). The portal builds on the
// same repository functions.
import type { FastifyInstance } from "fastify";
import Type from "typebox";
import { requireMerchant } from "../admin/index.ts";
import type { Database } from "../db/connect.ts";
import { AppError } from "../domain/errors.ts";
import { type Delivery, type DeliveryState, listDeliveries, resendDelivery } from "./deliveries-repository.ts";
import {
  createWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookHmacKey,
  updateWebhookEndpoint,
  type WebhookEndpoint,
} from "./endpoints-repository.ts";
import { notifyWebhookWorker } from "./outbox.ts";
import { webhookRuntime } from "./runtime.ts";
import { checkWebhookUrl } from "./ssrf.ts";

const MerchantParams = Type.Object({ merchantId: Type.String({ minLength: 1, maxLength: 64 }) });
const WebhookParams = Type.Object({
  merchantId: Type.String({ minLength: 1, maxLength: 64 }),
  webhookId: Type.String({ minLength: 1, maxLength: 64 }),
});
const DeliveryParams = Type.Object({
  merchantId: Type.String({ minLength: 1, maxLength: 64 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 64 }),
});

const Url = Type.String({ minLength: 1, maxLength: 2048, description: "https URL that receives the payment webhooks" });
/** Sent verbatim as the Authorization header: printable ASCII, single inner spaces (e.g. "Bearer abc"). */
const ApiKey = Type.String({
  minLength: 1,
  maxLength: 512,
  pattern: "^[\\x21-\\x7e]+( [\\x21-\\x7e]+)*$",
  description: "printable ASCII, sent verbatim as the Authorization header",
});

const CreateWebhookBody = Type.Object({ url: Url, apiKey: Type.Optional(ApiKey) }, { additionalProperties: false });
const UpdateWebhookBody = Type.Object({ url: Type.Optional(Url), apiKey: Type.Optional(ApiKey) }, { additionalProperties: false });
const DeliveriesQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    webhookId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    state: Type.Optional(Type.Union([Type.Literal("Pending"), Type.Literal("Delivered"), Type.Literal("Failed")])),
  },
  { additionalProperties: false },
);

const STATE_NAMES: Record<DeliveryState, string> = { pending: "Pending", delivered: "Delivered", failed: "Failed" };

function presentEndpoint(endpoint: WebhookEndpoint) {
  return {
    webhookId: endpoint.webhookId,
    url: endpoint.url,
    enabled: endpoint.enabled,
    maskedApiKey: endpoint.maskedApiKey,
    maskedHmacKey: endpoint.maskedHmacKey,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

function presentDelivery(delivery: Delivery) {
  return {
    deliveryId: delivery.deliveryId,
    webhookId: delivery.webhookId,
    url: delivery.url,
    eventType: delivery.eventType,
    state: STATE_NAMES[delivery.state],
    createdAt: delivery.createdAt.toISOString(),
    deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
    lastStatusCode: delivery.lastStatusCode,
    message: delivery.message,
    attempts: delivery.attempts.map((attempt) => ({
      attemptedAt: attempt.attemptedAt.toISOString(),
      statusCode: attempt.statusCode,
      latencyMs: attempt.latencyMs,
      responseExcerpt: attempt.responseExcerpt,
      error: attempt.error,
    })),
  };
}

function checkedUrl(url: string): string {
  const trimmed = url.trim();
  const problem = checkWebhookUrl(trimmed, webhookRuntime().allowPrivate);
  if (problem) throw new AppError("UnsupportedValue", problem);
  return trimmed;
}

const notFound = (webhookId: string) =>
  new AppError("NotFound", `No webhook endpoint with id ${JSON.stringify(webhookId)} for this merchant.`);

export function registerWebhookAdmin(app: FastifyInstance, deps: { db: Database }) {
  const { db } = deps;
  const tags = ["Admin: webhooks"];

  app.post(
    "/merchants/:merchantId/webhooks",
    {
      schema: {
        tags,
        summary: "Add a webhook endpoint (apiKey and hmacKey returned in clear)",
        params: MerchantParams,
        body: CreateWebhookBody,
      },
    },
    async (request) => {
      const { merchantId } = request.params as { merchantId: string };
      const body = request.body as { url: string; apiKey?: string };
      const url = checkedUrl(body.url);
      await requireMerchant(db, merchantId);
      const { endpoint, secrets } = await createWebhookEndpoint(db, webhookRuntime().keyring, merchantId, { url, apiKey: body.apiKey });
      return {
        webhookId: endpoint.webhookId,
        url: endpoint.url,
        apiKey: secrets.apiKey,
        hmacKey: secrets.hmacKey,
        enabled: endpoint.enabled,
      };
    },
  );

  app.get(
    "/merchants/:merchantId/webhooks",
    { schema: { tags, summary: "List webhook endpoints (secrets masked)", params: MerchantParams } },
    async (request) => {
      const { merchantId } = request.params as { merchantId: string };
      await requireMerchant(db, merchantId);
      const endpoints = await listWebhookEndpoints(db, webhookRuntime().keyring, merchantId);
      return { data: endpoints.map(presentEndpoint) };
    },
  );

  app.post(
    "/merchants/:merchantId/webhooks/:webhookId",
    { schema: { tags, summary: "Change a webhook endpoint's url or apiKey", params: WebhookParams, body: UpdateWebhookBody } },
    async (request) => {
      const { merchantId, webhookId } = request.params as { merchantId: string; webhookId: string };
      const body = request.body as { url?: string; apiKey?: string };
      const url = body.url === undefined ? undefined : checkedUrl(body.url);
      await requireMerchant(db, merchantId);
      const endpoint = await updateWebhookEndpoint(db, webhookRuntime().keyring, merchantId, webhookId, { url, apiKey: body.apiKey });
      if (!endpoint) throw notFound(webhookId);
      return presentEndpoint(endpoint);
    },
  );

  app.post(
    "/merchants/:merchantId/webhooks/:webhookId/rotate",
    { schema: { tags, summary: "Replace the HMAC key (the new key is returned; the old one stops at once)", params: WebhookParams } },
    async (request) => {
      const { merchantId, webhookId } = request.params as { merchantId: string; webhookId: string };
      await requireMerchant(db, merchantId);
      const rotated = await rotateWebhookHmacKey(db, webhookRuntime().keyring, merchantId, webhookId);
      if (!rotated) throw notFound(webhookId);
      return { webhookId, hmacKey: rotated.hmacKey };
    },
  );

  for (const [action, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    app.post(
      `/merchants/:merchantId/webhooks/:webhookId/${action}`,
      {
        schema: {
          tags,
          summary: enabled
            ? "Enable a webhook endpoint (deliveries held while it was disabled go out at once)"
            : "Disable a webhook endpoint (new payments queue nothing for it; queued deliveries wait)",
          params: WebhookParams,
        },
      },
      async (request) => {
        const { merchantId, webhookId } = request.params as { merchantId: string; webhookId: string };
        await requireMerchant(db, merchantId);
        const endpoint = await updateWebhookEndpoint(db, webhookRuntime().keyring, merchantId, webhookId, { enabled });
        if (!endpoint) throw notFound(webhookId);
        if (enabled) notifyWebhookWorker();
        return presentEndpoint(endpoint);
      },
    );
  }

  app.get(
    "/merchants/:merchantId/deliveries",
    {
      schema: {
        tags,
        summary: "The delivery log: deliveries newest first, each with its attempts",
        params: MerchantParams,
        querystring: DeliveriesQuery,
      },
    },
    async (request) => {
      const { merchantId } = request.params as { merchantId: string };
      const query = request.query as { page?: number; pageSize?: number; webhookId?: string; state?: "Pending" | "Delivered" | "Failed" };
      const page = query.page ?? 0;
      const pageSize = query.pageSize ?? 20;
      await requireMerchant(db, merchantId);
      const state = query.state === undefined ? undefined : (query.state.toLowerCase() as DeliveryState);
      const { deliveries, totalCount } = await listDeliveries(
        db,
        merchantId,
        { webhookId: query.webhookId, state },
        { offset: page * pageSize, limit: pageSize },
      );
      return { data: deliveries.map(presentDelivery), totalCount };
    },
  );

  app.post(
    "/merchants/:merchantId/deliveries/:deliveryId/resend",
    { schema: { tags, summary: "Send a delivery again now, with a fresh retry schedule and the same webhook-id", params: DeliveryParams } },
    async (request) => {
      const { merchantId, deliveryId } = request.params as { merchantId: string; deliveryId: string };
      await requireMerchant(db, merchantId);
      const outcome = await resendDelivery(db, merchantId, deliveryId);
      if (outcome === "not-found") throw new AppError("NotFound", `No delivery with id ${JSON.stringify(deliveryId)} for this merchant.`);
      if (outcome === "in-flight")
        throw new AppError(
          "StateConflict",
          "This delivery is being sent right now; look at its outcome in the delivery log and resend afterwards if needed.",
        );
      notifyWebhookWorker();
      return { deliveryId, state: "Pending" };
    },
  );
}
