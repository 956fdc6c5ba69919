// GET /pay/{reference}: the checkout page. Every GET counts one visit, whatever the link's status.
import type { FastifyInstance } from "fastify";
import { countVisit, loadCheckoutLink } from "../db/checkout-repository.ts";
import { type CheckoutContext, REFERENCE_PATTERN } from "./deps.ts";
import { issueFormToken } from "./form-token.ts";
import { isLang } from "./i18n.ts";
import { rememberLang, requestedLang } from "./language.ts";
import { priceOf, sendCheckoutPage, sendStatusPage, statusOf } from "./link-pages.tsx";
import { sendCheckoutNotFound } from "./page-response.tsx";
import { pageTheme } from "./theme.ts";

export function pageRoute(app: FastifyInstance, { deps, formKey }: CheckoutContext): void {
  app.get("/:reference", { schema: { hide: true } }, async (request, reply) => {
    const { reference } = request.params as { reference: string };
    // A HEAD (link previews, uptime checks) is not a shopper's visit.
    const known = REFERENCE_PATTERN.test(reference) && (request.method === "HEAD" || (await countVisit(deps.db, reference)));
    const link = known ? await loadCheckoutLink(deps.db, reference) : undefined;
    if (!link) return sendCheckoutNotFound(request, reply);
    const lang = requestedLang(request) ?? link.terms.culture;
    const query = request.query as Record<string, unknown>;
    if (isLang(query.lang)) rememberLang(reply, query.lang, deps.publicBaseUrl);
    const theme = pageTheme(link);
    const status = statusOf(link, deps.now());
    if (status !== "Active") return sendStatusPage(reply, link, lang, theme, status);
    const formToken = issueFormToken(formKey, reference, deps.now(), priceOf(link));
    return sendCheckoutPage(reply, 200, link, { lang, theme, formToken, values: {}, errors: [] });
  });
}
