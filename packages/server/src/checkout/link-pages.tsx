/** @jsxRuntime automatic @jsxImportSource preact */
// The pages of one link, shared by its GET and its POST: the checkout form (first shown, or again
// with the shopper's details and what went wrong) and the page that says why it takes no payment.
import type { FastifyReply } from "fastify";
import type { CheckoutLink } from "../db/checkout-repository.ts";
import { cartDigest } from "../domain/links/cart.ts";
import type { LinkStatus } from "../domain/links/types.ts";
import { linkPath } from "../domain/links/url.ts";
import { type FirstViewCache, FORM_TOKEN_MARKER, NONCE_MARKER } from "./first-view-cache.ts";
import type { FieldError, RedisplayValues } from "./form.ts";
import { issueFormToken, type ShownPrice } from "./form-token.ts";
import { type Lang, otherLang } from "./i18n.ts";
import { sendPage, sendRenderedPage } from "./page-response.tsx";
import type { PageTheme } from "./theme.ts";
import type { CheckoutAlert } from "./views/alerts.tsx";
import { CheckoutPage } from "./views/checkout-page.tsx";
import { renderDocument } from "./views/layout.tsx";
import { StatusPage } from "./views/status-page.tsx";

export interface CheckoutView {
  lang: Lang;
  theme: PageTheme;
  formToken: string;
  values: RedisplayValues;
  errors: FieldError[];
  alert?: CheckoutAlert;
}

export function sendCheckoutPage(reply: FastifyReply, status: number, link: CheckoutLink, view: CheckoutView) {
  return sendPage(reply, status, (nonce) => checkoutPage(link, view, nonce, view.formToken), { returnUrl: link.terms.returnUrl });
}

/**
 * The page as a shopper first sees it (200): rendered once per language, theme, reference and
 * terms, then sent with this response's nonce and form token (D-261).
 */
export function sendFirstView(
  reply: FastifyReply,
  firstViews: FirstViewCache,
  link: CheckoutLink,
  view: { lang: Lang; theme: PageTheme; formToken: string },
) {
  const shown: CheckoutView = { ...view, formToken: FORM_TOKEN_MARKER, values: {}, errors: [] };
  // Everything the page is rendered from: the props below admit the link's reference and terms only.
  const key = `${view.lang} ${link.reference} ${JSON.stringify(view.theme)} ${JSON.stringify(link.terms)}`;
  return sendRenderedPage(
    reply,
    200,
    (nonce) =>
      firstViews.page(key, () => renderDocument(checkoutPage(link, shown, NONCE_MARKER, FORM_TOKEN_MARKER)), nonce, view.formToken),
    { returnUrl: link.terms.returnUrl },
  );
}

function checkoutPage(link: CheckoutLink, view: CheckoutView, nonce: string, formToken: string) {
  return (
    <CheckoutPage
      lang={view.lang}
      nonce={nonce}
      theme={view.theme}
      link={{ reference: link.reference, terms: link.terms }}
      formToken={formToken}
      values={view.values}
      errors={view.errors}
      alert={view.alert}
      switchHref={switchHref(link, view.lang)}
    />
  );
}

/** The page again with the link's current price and a token for it (409); nothing was charged. */
export function sendPriceChanged(
  reply: FastifyReply,
  formKey: Buffer,
  link: CheckoutLink,
  view: { lang: Lang; theme: PageTheme; values: RedisplayValues },
  now: Date,
) {
  const formToken = issueFormToken(formKey, link.reference, now, priceOf(link));
  return sendCheckoutPage(reply, 409, link, { ...view, formToken, errors: [], alert: { kind: "price-changed" } });
}

export function sendStatusPage(
  reply: FastifyReply,
  link: CheckoutLink,
  lang: Lang,
  theme: PageTheme,
  status: Exclude<LinkStatus, "Active">,
) {
  return sendPage(reply, 410, (nonce) => (
    <StatusPage lang={lang} nonce={nonce} theme={theme} status={status} switchHref={switchHref(link, lang)} />
  ));
}

/** The same page in the other language. */
function switchHref(link: CheckoutLink, lang: Lang): string {
  return `${linkPath(link.reference)}?lang=${otherLang(lang)}`;
}

/** What the page shows the shopper will pay for: the total and the cart (signed into the form token). */
export function priceOf(link: CheckoutLink): ShownPrice {
  return { amount: link.terms.amount, currency: link.terms.currency, cart: cartDigest(link.terms.items) };
}

/** Whether the link still asks what the page showed: the same total and the same items. */
export function samePrice(shown: ShownPrice, link: CheckoutLink): boolean {
  return shown.amount === link.terms.amount && shown.currency === link.terms.currency && shown.cart === cartDigest(link.terms.items);
}
