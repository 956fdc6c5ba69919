// POST /api/v1/modification/refund (docs/api.md#refund): answered "Received"; the result arrives as
// a Refund webhook and shows on GET /payments/{payfacReference}.
import { apiActor } from "../http/actor.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { refundPayment } from "../services/refund.ts";
import { RefundBody } from "./after-sale-schemas.ts";
import type { ApiDeps } from "./deps.ts";
import { modificationAnswer, modificationSchema } from "./modification-route.ts";

export function registerRefund(app: TypedApp, deps: ApiDeps) {
  app.post(
    "/modification/refund",
    modificationSchema({ operationId: "refundPayment", summary: "Refund a payment, in part or in full", body: RefundBody }),
    async (request, reply) => {
      const answer = modificationAnswer(request, reply);
      const serviceDeps = { ...deps, log: request.log };
      return answer.body(await refundPayment(serviceDeps, request.merchantId, apiActor(request), request.body, answer.effect));
    },
  );
}
