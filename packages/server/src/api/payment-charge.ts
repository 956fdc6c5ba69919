// POST /api/v1/payment (docs/api.md#charge-a-saved-card): charge a saved card. Approved and refused
// are both HTTP 200, as the live gateway answers; an unknown outcome is 503 5002, never Authorised.

import { apiActor } from "../http/actor.ts";
import { envelope } from "../http/envelope.ts";
import { keyedAnswer } from "../http/idempotency.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { chargeSavedCard, type TokenCharge } from "../services/charge-token.ts";
import { ChargeTokenBody, ChargeTokenResponse } from "./after-sale-schemas.ts";
import type { ApiDeps } from "./deps.ts";
import { presentTokenCharge } from "./present-payment.ts";
import { ERROR_RESPONSES, ErrorResponse } from "./schemas.ts";

export function registerChargeToken(app: TypedApp, deps: ApiDeps) {
  app.post(
    "/payment",
    {
      schema: {
        operationId: "chargeToken",
        summary: "Charge a saved card",
        tags: ["Saved cards and refunds"],
        body: ChargeTokenBody,
        response: { 200: ChargeTokenResponse, ...ERROR_RESPONSES, 503: ErrorResponse },
      },
    },
    async (request, reply) => {
      const answer = keyedAnswer(request, reply, (charge: TokenCharge) => ({
        ...presentTokenCharge(charge, deps.publicBaseUrl),
        ...envelope(request),
      }));
      const serviceDeps = { ...deps, log: request.log };
      return answer.body(await chargeSavedCard(serviceDeps, request.merchantId, apiActor(request), request.body, answer.effect));
    },
  );
}
