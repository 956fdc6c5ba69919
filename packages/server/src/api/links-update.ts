// POST /api/v1/paymentlinks/update (docs/api.md#update)

import { apiActor } from "../http/actor.ts";
import { envelope } from "../http/envelope.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { updateLink } from "../services/update-link.ts";
import type { ApiDeps } from "./deps.ts";
import { notFound } from "./links-get.ts";
import { EnvelopeResponse, ERROR_RESPONSES, UpdateLinkBody } from "./schemas.ts";

export function registerUpdateLink(app: TypedApp, deps: ApiDeps) {
  app.post(
    "/paymentlinks/update",
    {
      schema: {
        operationId: "updatePaymentLink",
        summary: "Change a payment link (send back the object read by GET, changed)",
        tags: ["Payment links"],
        body: UpdateLinkBody,
        response: { 200: EnvelopeResponse, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { body } = request;
      const serviceDeps = { ...deps, log: request.log };
      if (!(await updateLink(serviceDeps, request.merchantId, apiActor(request), body))) throw notFound(body.paymentLinkReference);
      return envelope(request);
    },
  );
}
