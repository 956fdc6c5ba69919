// POST /api/v1/paymentlinks/disable (docs/api.md#disable): idempotent; submissions and tokens are kept.

import { apiActor } from "../http/actor.ts";
import { envelope } from "../http/envelope.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { disableLink } from "../services/disable-link.ts";
import type { ApiDeps } from "./deps.ts";
import { notFound } from "./links-get.ts";
import { DisableLinkBody, EnvelopeResponse, ERROR_RESPONSES } from "./schemas.ts";

export function registerDisableLink(app: TypedApp, deps: ApiDeps) {
  app.post(
    "/paymentlinks/disable",
    {
      schema: {
        operationId: "disablePaymentLink",
        summary: "Disable a payment link at once",
        tags: ["Payment links"],
        body: DisableLinkBody,
        response: { 200: EnvelopeResponse, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { paymentLinkReference } = request.body;
      const serviceDeps = { ...deps, log: request.log };
      if (!(await disableLink(serviceDeps, request.merchantId, apiActor(request), paymentLinkReference)))
        throw notFound(paymentLinkReference);
      return envelope(request);
    },
  );
}
