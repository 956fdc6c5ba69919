// POST /api/v1/paymentlinks/create (docs/api.md#create)
import { linkUrl } from "../domain/links/url.ts";
import { apiActor } from "../http/actor.ts";
import { envelope } from "../http/envelope.ts";
import { keyedAnswer } from "../http/idempotency.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { createLink } from "../services/create-link.ts";
import type { ApiDeps } from "./deps.ts";
import { CreateLinkBody, CreateLinkResponse, ERROR_RESPONSES } from "./schemas.ts";

export function registerCreateLink(app: TypedApp, deps: ApiDeps) {
  app.post(
    "/paymentlinks/create",
    {
      schema: {
        operationId: "createPaymentLink",
        summary: "Create a payment link",
        tags: ["Payment links"],
        body: CreateLinkBody,
        response: { 200: CreateLinkResponse, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const answer = keyedAnswer(request, reply, (reference: string) => ({
        paymentLinkReference: reference,
        url: linkUrl(deps.publicBaseUrl, reference),
        ...envelope(request),
      }));
      const serviceDeps = { ...deps, log: request.log };
      return answer.body(await createLink(serviceDeps, request.merchantId, apiActor(request), request.body, answer.effect));
    },
  );
}
