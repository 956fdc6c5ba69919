// GET /pay/{reference} (and /checkout/{checkoutReference} for a session): the checkout page. Every GET counts one visit, whatever the link's status.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { loadCheckoutLink } from "../db/checkout-repository.ts";
import { linkStatus } from "../domain/links/status.ts";
import { offeredSavedCards } from "../services/shopper-saved-cards.ts";
import { isLang } from "../web/i18n.ts";
import { pageTheme } from "../web/theme.ts";
import type { CheckoutContext } from "./deps.ts";
import { issueFormToken } from "./form-token.ts";
import { rememberLang, requestedLang } from "./i18n.ts";
import { priceOf, sendFirstView, sendStatusPage } from "./link-pages.tsx";
import { sendCheckoutNotFound } from "./page-response.tsx";
import { LangQuery, LinkParams, pathRejected } from "./schemas.ts";

export function pageRoute(fastify: FastifyInstance, { deps, formKey, firstViews }: CheckoutContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const schema = { hide: true, params: LinkParams, querystring: LangQuery };
  app.get("/:reference", { schema, attachValidation: true }, async (request, reply) => {
    const { reference } = request.params;
    // A HEAD (link previews, uptime checks) is not a shopper's visit.
    const link = pathRejected(request)
      ? undefined
      : await loadCheckoutLink(deps.db, reference, { countVisit: request.method !== "HEAD", kind: deps.kind });
    if (!link) return sendCheckoutNotFound(request, reply);
    const lang = requestedLang(request) ?? link.terms.culture;
    if (isLang(request.query.lang))
      rememberLang(reply, request.query.lang, deps.publicBaseUrl, deps.kind === "session" ? "/checkout" : "/pay");
    const theme = pageTheme(link);
    const status = linkStatus(link, deps.now());
    if (status !== "Active") return sendStatusPage(reply, link, lang, theme, status);
    const formToken = issueFormToken(formKey, reference, deps.now(), priceOf(link));
    const savedCards = await offeredSavedCards(deps, link);
    return sendFirstView(reply, firstViews, link, { lang, theme, formToken, savedCards });
  });
}
