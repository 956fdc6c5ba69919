// The wire shape of webhook endpoints and deliveries in /admin/v1: secrets masked, times as ISO 8601.
import type { Delivery, DeliveryState } from "../db/webhook-deliveries-repository.ts";
import type { WebhookEndpoint } from "../db/webhook-endpoints-repository.ts";

const STATE_NAMES: Record<DeliveryState, string> = { pending: "Pending", delivered: "Delivered", failed: "Failed" };

export function presentEndpoint(endpoint: WebhookEndpoint) {
  return {
    webhookId: endpoint.webhookId,
    url: endpoint.url,
    enabled: endpoint.enabled,
    disputeEvents: endpoint.disputeEvents,
    maskedApiKey: endpoint.maskedApiKey,
    maskedHmacKey: endpoint.maskedHmacKey,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

export function presentDelivery(delivery: Delivery) {
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
