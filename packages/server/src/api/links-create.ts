// POST /api/v1/paymentlinks/create (docs/api.md#create)
import { linkUrl } from "../domain/links/url.ts";
import { envelope } from "../http/envelope.ts";
import { keyedAnswer } from "../http/idempotency.ts";
import type { TypedApp } from "../http/typed-app.ts";
import type { ApiDeps } from "./deps.ts";
import { createPaymentLink } from "./link-service.ts";
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
      const reference = await createPaymentLink(deps.db, request.merchantId, request.body, deps.now(), answer.effect);
      request.log.info({ paymentLinkReference: reference }, "payment link created");
      return answer.body(reference);
    },
  );
}
