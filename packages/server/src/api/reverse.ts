// POST /api/v1/modification/reverse (docs/api.md#reverse): cancel, or refund whatever is not yet
// refunded; answered "Received", the result arrives as a Refund webhook.
import { apiActor } from "../http/actor.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { reversePayment } from "../services/reverse.ts";
import { ReverseBody } from "./after-sale-schemas.ts";
import type { ApiDeps } from "./deps.ts";
import { modificationAnswer, modificationSchema } from "./modification-route.ts";

export function registerReverse(app: TypedApp, deps: ApiDeps) {
  app.post(
    "/modification/reverse",
    modificationSchema({
      operationId: "reversePayment",
      summary: "Reverse a payment: cancel it, or refund what is not yet refunded",
      body: ReverseBody,
    }),
    async (request, reply) => {
      const answer = modificationAnswer(request, reply);
      const serviceDeps = { ...deps, log: request.log };
      return answer.body(await reversePayment(serviceDeps, request.merchantId, apiActor(request), request.body, answer.effect));
    },
  );
}
