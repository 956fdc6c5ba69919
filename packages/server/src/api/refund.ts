// POST /api/v1/modification/refund (docs/api.md#refund): answered "Received"; the result arrives as
// a Refund webhook and shows on GET /payments/{payfacReference}.
import { envelope } from "../http/envelope.ts";
import { keyedAnswer } from "../http/idempotency.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { type ModificationReceipt, refundPayment } from "../payments/refund.ts";
import { ModificationResponse, RefundBody } from "./after-sale-schemas.ts";
import type { ApiDeps } from "./deps.ts";
import { ERROR_RESPONSES } from "./schemas.ts";

export function registerRefund(app: TypedApp, deps: ApiDeps) {
  app.post(
    "/modification/refund",
    {
      schema: {
        operationId: "refundPayment",
        summary: "Refund a payment, in part or in full",
        tags: ["Saved cards and refunds"],
        body: RefundBody,
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
      return answer.body(await refundPayment(operationDeps, request.merchantId, request.body, answer.effect));
    },
  );
}
