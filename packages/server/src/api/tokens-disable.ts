// POST /api/v1/tokens/disable (docs/api.md#disable-a-saved-card): idempotent; one TokenDisabled.

import { apiActor } from "../http/actor.ts";
import { envelope } from "../http/envelope.ts";
import { keyedAnswer } from "../http/idempotency.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { disableSavedCard } from "../services/disable-token.ts";
import { DisableTokenBody } from "./after-sale-schemas.ts";
import type { ApiDeps } from "./deps.ts";
import { EnvelopeResponse, ERROR_RESPONSES } from "./schemas.ts";

export function registerDisableToken(app: TypedApp, deps: ApiDeps) {
  app.post(
    "/tokens/disable",
    {
      schema: {
        operationId: "disableToken",
        summary: "Disable a saved card",
        tags: ["Saved cards and refunds"],
        body: DisableTokenBody,
        response: { 200: EnvelopeResponse, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const answer = keyedAnswer(request, reply, () => envelope(request));
      const serviceDeps = { ...deps, log: request.log };
      return answer.body(
        await disableSavedCard(serviceDeps, request.merchantId, apiActor(request), request.body.tokenValue, answer.effect),
      );
    },
  );
}
