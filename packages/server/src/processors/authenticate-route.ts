// GET /processors/authenticate/{checkoutReference}: where a merchant sends the shopper of a
// saved-card charge the processor answered with RedirectShopper (3-D Secure). Paylink forwards
// them to the processor's page while the charge waits; the processor sends them back to the
// merchant's returnUrl (or, without one, to …/done here), and its notification decides the charge
// (docs/processors.md#after-the-sale).
import type { FastifyInstance } from "fastify";
import type { Database } from "../db/connect.ts";
import { findTokenPayment } from "../db/token-payments-repository.ts";

export async function shopperAuthenticationRoute(app: FastifyInstance, deps: { db: Database }): Promise<void> {
  app.get<{ Params: { checkoutReference: string } }>(
    "/authenticate/:checkoutReference",
    { schema: { hide: true } },
    async (request, reply) => {
      const { checkoutReference } = request.params;
      const charge = checkoutReference.length <= 64 ? await findTokenPayment(deps.db, checkoutReference) : undefined;
      reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");
      if (charge?.state === "pending" && charge.shopperRedirectUrl) return reply.redirect(charge.shopperRedirectUrl, 303);
      // Decided (or given up on): back to the merchant if it said where, otherwise a plain answer.
      if (charge?.returnUrl) return reply.redirect(charge.returnUrl, 303);
      return reply
        .code(charge ? 410 : 404)
        .type("text/plain; charset=utf-8")
        .send(charge ? "This card authentication is over. You can close this page." : "No such card authentication.");
    },
  );
  // Back from the processor's page of a charge whose merchant gave no returnUrl: the shopper is done here.
  app.get<{ Params: { checkoutReference: string } }>(
    "/authenticate/:checkoutReference/done",
    { schema: { hide: true } },
    async (request, reply) => {
      const { checkoutReference } = request.params;
      const charge = checkoutReference.length <= 64 ? await findTokenPayment(deps.db, checkoutReference) : undefined;
      reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");
      return reply
        .code(charge ? 200 : 404)
        .type("text/plain; charset=utf-8")
        .send(
          charge
            ? "Thank you: the card authentication is done. The shop will confirm the payment. You can close this page."
            : "No such card authentication.",
        );
    },
  );
}
