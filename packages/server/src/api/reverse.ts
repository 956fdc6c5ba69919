// POST /api/v1/modification/reverse (docs/api.md#reverse): cancel, or refund whatever is not yet
// refunded; answered "Received", the result arrives as a Refund webhook.
import type { TypedApp } from "../http/typed-app.ts";
import { reversePayment } from "../services/reverse.ts";
import { ReverseBody } from "./after-sale-schemas.ts";
import type { ApiDeps } from "./deps.ts";
import { answerModification, modificationSchema } from "./modification-route.ts";

export function registerReverse(app: TypedApp, deps: ApiDeps) {
  app.post(
    "/modification/reverse",
    modificationSchema({
      operationId: "reversePayment",
      summary: "Reverse a payment: cancel it, or refund what is not yet refunded",
      body: ReverseBody,
    }),
    (request, reply) =>
      answerModification(request, reply, deps, (operationDeps, keyed) =>
        reversePayment(operationDeps, request.merchantId, request.body, keyed),
      ),
  );
}
