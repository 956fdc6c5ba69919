// POST /api/v1/modification/reverse (docs/api.md#reverse): cancel, or refund whatever is not yet
// refunded; answered "Received", the result arrives as a Refund webhook.
import { envelope } from "../http/envelope.ts";
import { keyedAnswer } from "../http/idempotency.ts";
import type { TypedApp } from "../http/typed-app.ts";
import type { ModificationReceipt } from "../payments/refund.ts";
import { reversePayment } from "../payments/reverse.ts";
import { ModificationResponse, ReverseBody } from "./after-sale-schemas.ts";
import type { ApiDeps } from "./deps.ts";
import { ERROR_RESPONSES } from "./schemas.ts";

export function registerReverse(app: TypedApp, deps: ApiDeps) {
  app.post(
    "/modification/reverse",
    {
      schema: {
        operationId: "reversePayment",
        summary: "Reverse a payment: cancel it, or refund what is not yet refunded",
        tags: ["Saved cards and refunds"],
        body: ReverseBody,
        response: { 200: ModificationResponse, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const answer = keyedAnswer(request, reply, ({ payfacReference, originalPayfacReference, status }: ModificationReceipt) => ({
        payfacReference,
        originalPayfacReference,
        status,
        ...envelope(request),
      }));
      const operationDeps = { db: deps.db, processor: deps.processor, log: request.log };
      return answer.body(await reversePayment(operationDeps, request.merchantId, request.body, answer.effect));
    },
  );
}
