// POST /api/v1/paymentlinks/update (docs/api.md#update)
import { findLinkForUpdate, saveLinkChange } from "../db/links-repository.ts";
import { applyUpdate } from "../domain/links/update.ts";
import { envelope } from "../http/envelope.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { checkTerminalAndCurrency, checkTheme } from "./check-references.ts";
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
      const merchantId = request.merchantId;
      // The row stays locked from read to write, so a sale cannot land between the rules'
      // check (e.g. "price frozen after a sale") and the change.
      await deps.db.transaction().execute(async (trx) => {
        const current = await findLinkForUpdate(trx, merchantId, body.paymentLinkReference);
        if (!current) throw notFound(body.paymentLinkReference);
        const change = applyUpdate(current, body, deps.now());
        if (change.terms.currency !== current.terms.currency) await checkTerminalAndCurrency(trx, merchantId, change.terms);
        if (change.terms.themeKey !== current.terms.themeKey) await checkTheme(trx, merchantId, change.terms.themeKey);
        await saveLinkChange(trx, current.reference, change.terms, change.disabled);
      });
      return envelope(request);
    },
  );
}
