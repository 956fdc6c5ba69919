// POST /api/v1/modification/capture (docs/api.md#capture-and-adjust): capture a manual-capture
// authorisation in part or in full; answered "Received", the result arrives as a Capture webhook.
import { apiActor } from "../http/actor.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { captureOrAdjust } from "../services/capture.ts";
import { CaptureBody } from "./after-sale-schemas.ts";
import type { ApiDeps } from "./deps.ts";
import { modificationAnswer, modificationSchema } from "./modification-route.ts";

export function registerCapture(app: TypedApp, deps: ApiDeps) {
  app.post(
    "/modification/capture",
    modificationSchema({
      operationId: "capturePayment",
      summary: "Capture a manual-capture authorisation, in part or in full",
      body: CaptureBody,
      tag: "Hosted checkout",
    }),
    async (request, reply) => {
      const answer = modificationAnswer(request, reply);
      const serviceDeps = { ...deps, log: request.log };
      return answer.body(await captureOrAdjust(serviceDeps, request.merchantId, apiActor(request), "capture", request.body, answer.effect));
    },
  );
}
