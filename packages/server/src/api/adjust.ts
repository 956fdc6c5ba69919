// POST /api/v1/modification/adjust (docs/api.md#capture-and-adjust): change a pre-authorisation's
// amount before any capture; answered "Received", the result arrives as an Adjustment webhook.
import { apiActor } from "../http/actor.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { adjustPayment } from "../services/adjust.ts";
import { AdjustBody } from "./after-sale-schemas.ts";
import type { ApiDeps } from "./deps.ts";
import { modificationAnswer, modificationSchema } from "./modification-route.ts";

export function registerAdjust(app: TypedApp, deps: ApiDeps) {
  app.post(
    "/modification/adjust",
    modificationSchema({
      operationId: "adjustAuthorisation",
      summary: "Adjust a pre-authorisation's amount before any capture",
      body: AdjustBody,
      tag: "Hosted checkout",
    }),
    async (request, reply) => {
      const answer = modificationAnswer(request, reply);
      const serviceDeps = { ...deps, log: request.log };
      return answer.body(await adjustPayment(serviceDeps, request.merchantId, apiActor(request), request.body, answer.effect));
    },
  );
}
