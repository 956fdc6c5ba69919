// POST /api/v1/payment/disable-token (docs/api.md#disable-a-saved-card): the live gateway's path
// and answer for what /tokens/disable does.

import { apiActor } from "../http/actor.ts";
import { envelope } from "../http/envelope.ts";
import { keyedAnswer } from "../http/idempotency.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { disableSavedCard } from "../services/disable-token.ts";
import { DisableTokenBody } from "./after-sale-schemas.ts";
import type { ApiDeps } from "./deps.ts";
import { ERROR_RESPONSES } from "./schemas.ts";
import { PaymentDisableTokenResponse } from "./session-schemas.ts";

export function registerPaymentDisableToken(app: TypedApp, deps: ApiDeps) {
  app.post(
    "/payment/disable-token",
    {
      schema: {
        operationId: "disableTokenLivePath",
        summary: "Disable a saved card (the live gateway's path)",
        tags: ["Saved cards and refunds"],
        body: DisableTokenBody,
        response: { 200: PaymentDisableTokenResponse, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const answer = keyedAnswer(request, reply, () => ({
        success: true,
        message: "Token disabled successfully.",
        ...envelope(request),
      }));
      const serviceDeps = { ...deps, log: request.log };
      return answer.body(
        await disableSavedCard(serviceDeps, request.merchantId, apiActor(request), request.body.tokenValue, answer.effect),
      );
    },
  );
}
