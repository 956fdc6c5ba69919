// The modification endpoints, refund, reverse, capture and adjust (docs/api.md#refund, #reverse,
// #capture-and-adjust), are one kind of route: a use case run under the request's Idempotency-Key, answered "Received" with
// presentModification's fields and the envelope; the result follows as a webhook.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { TObject } from "typebox";
import { envelope } from "../http/envelope.ts";
import { keyedAnswer } from "../http/idempotency.ts";
import type { ModificationReceipt } from "../services/modification.ts";
import { ModificationResponse } from "./after-sale-schemas.ts";
import { presentModification } from "./present-payment.ts";
import { ERROR_RESPONSES } from "./schemas.ts";

/** The route options of a modification: its own operation, summary and body; the common answers. */
export function modificationSchema<Body extends TObject>(operation: { operationId: string; summary: string; body: Body; tag?: string }) {
  const { tag, ...rest } = operation;
  return {
    schema: {
      ...rest,
      tags: [tag ?? "Saved cards and refunds"],
      response: { 200: ModificationResponse, ...ERROR_RESPONSES },
    },
  };
}

/** The answer of a modification, under the request's Idempotency-Key: "Received" and the envelope. */
export function modificationAnswer(request: FastifyRequest, reply: FastifyReply) {
  return keyedAnswer(request, reply, (receipt: ModificationReceipt) => ({ ...presentModification(receipt), ...envelope(request) }));
}
