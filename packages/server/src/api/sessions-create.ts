// POST /api/v1/hostedcheckout and /hostedcheckout/ (docs/api.md#hosted-checkout-sessions): the
// WooCommerce plugin posts with the trailing slash, others without.

import { apiActor } from "../http/actor.ts";
import { envelope } from "../http/envelope.ts";
import { keyedAnswer } from "../http/idempotency.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { createSession } from "../services/create-session.ts";
import type { ApiDeps } from "./deps.ts";
import { ERROR_RESPONSES } from "./schemas.ts";
import { CreateSessionBody, CreateSessionResponse } from "./session-schemas.ts";

/** Where a session's page lives. */
export function sessionUrl(publicBaseUrl: string, checkoutReference: string): string {
  return `${publicBaseUrl}/checkout/${encodeURIComponent(checkoutReference)}`;
}

export function registerCreateSession(app: TypedApp, deps: ApiDeps) {
  for (const path of ["/hostedcheckout", "/hostedcheckout/"]) {
    app.post(
      path,
      {
        schema: {
          operationId: path.endsWith("/") ? "createHostedCheckoutSessionWithSlash" : "createHostedCheckoutSession",
          summary: "Create a hosted-checkout session for one order",
          tags: ["Hosted checkout"],
          // One operation in the document; the path with the slash is the same call.
          ...(path.endsWith("/") ? { hide: true } : {}),
          body: CreateSessionBody,
          response: { 200: CreateSessionResponse, ...ERROR_RESPONSES },
        },
      },
      async (request, reply) => {
        const answer = keyedAnswer(request, reply, (reference: string) => ({
          url: sessionUrl(deps.publicBaseUrl, reference),
          checkoutReference: reference,
          ...envelope(request),
        }));
        const serviceDeps = { ...deps, log: request.log };
        return answer.body(await createSession(serviceDeps, request.merchantId, apiActor(request), request.body, answer.effect));
      },
    );
  }
}
