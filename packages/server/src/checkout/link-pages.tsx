/** @jsxRuntime automatic @jsxImportSource preact */
// The pages of one link, shared by its GET and its POST: the checkout form (first shown, or again
// with the shopper's details and what went wrong) and the page that says why it takes no payment.
import type { FastifyReply } from "fastify";
import type { CheckoutLink } from "../db/checkout-repository.ts";
import { cartDigest } from "../domain/links/cart.ts";
import type { LinkStatus } from "../domain/links/types.ts";
import { checkoutPath } from "../domain/links/url.ts";
import { renderDocument } from "../web/html-page.ts";
import { type Lang, otherLang } from "../web/i18n.ts";
import type { PageTheme } from "../web/theme.ts";
import { type FirstViewCache, FORM_TOKEN_MARKER, NONCE_MARKER } from "./first-view-cache.ts";
import type { FieldError, RedisplayValues } from "./form.ts";
import { issueFormToken, type ShownPrice } from "./form-token.ts";
import { sendPage, sendRenderedPage } from "./page-response.tsx";
import type { CheckoutAlert } from "./views/alerts.tsx";
import { CheckoutPage, type CheckoutPageProps } from "./views/checkout-page.tsx";
import type { SavedCardOption } from "./views/saved-cards.tsx";
import { StatusPage } from "./views/status-page.tsx";

export interface CheckoutView {
  lang: Lang;
  theme: PageTheme;
  formToken: string;
  values: RedisplayValues;
  errors: FieldError[];
  alert?: CheckoutAlert;
  /** A session shopper's saved cards (none for a link). */
  savedCards?: SavedCardOption[];
  savedCardChoice?: string;
}

export function sendCheckoutPage(reply: FastifyReply, status: number, link: CheckoutLink, view: CheckoutView) {
  return sendPage(reply, status, (nonce) => <CheckoutPage {...checkoutPageProps(link, view, nonce, view.formToken)} />, {
    returnUrl: link.terms.returnUrl,
    processorOrigin: link.processorPageOrigin,
  });
}

/**
 * The page as a shopper first sees it (200): rendered once per content, then sent with this
 * response's nonce and form token (docs/decisions.md#checkout-pages). A link with a prefilled shopper field is one shopper's
 * link: its page (their name, email, national ID) is rendered each time rather than kept.
 */
export function sendFirstView(
  reply: FastifyReply,
  firstViews: FirstViewCache,
  link: CheckoutLink,
  view: { lang: Lang; theme: PageTheme; formToken: string; savedCards?: SavedCardOption[] },
) {
  const shown: CheckoutView = { ...view, values: {}, errors: [] };
  // A page with a shopper's own details (prefilled fields, saved cards) is rendered each time.
  const ownDetails = link.terms.shopperInfo.some((entry) => entry.prefilledValue !== null) || (view.savedCards?.length ?? 0) > 0;
  if (ownDetails) return sendCheckoutPage(reply, 200, link, shown);
  // The key is the props themselves (markers in place of the nonce and the token), so whatever
  // the page is rendered from is in it.
  const props = checkoutPageProps(link, shown, NONCE_MARKER, FORM_TOKEN_MARKER);
  const key = JSON.stringify(props);
  return sendRenderedPage(
    reply,
    200,
    (nonce) => firstViews.page(key, () => renderDocument(<CheckoutPage {...props} />), nonce, view.formToken),
    { returnUrl: link.terms.returnUrl, processorOrigin: link.processorPageOrigin },
  );
}

function checkoutPageProps(link: CheckoutLink, view: CheckoutView, nonce: string, formToken: string): CheckoutPageProps {
  return {
    lang: view.lang,
    nonce,
    theme: view.theme,
    link: { reference: link.reference, terms: link.terms, session: link.session },
    formToken,
    values: view.values,
    errors: view.errors,
    alert: view.alert,
    switchHref: switchHref(link, view.lang),
    savedCards: view.savedCards ?? [],
    savedCardChoice: view.savedCardChoice,
    hosted: link.processorType !== "sandbox",
  };
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
  extra?: string,
) {
  // A session is either paid (its one sale, or its card saved) or closed by time.
  const kind = link.session ? (status === "Used" || status === "Completed" ? "SessionCompleted" : "SessionExpired") : status;
  const back = link.session?.abandonUrl ?? null;
  return sendPage(reply, 410, (nonce) => (
    <StatusPage lang={lang} nonce={nonce} theme={theme} status={kind} switchHref={switchHref(link, lang)} extra={extra} backHref={back} />
  ));
}

/** The same page in the other language. */
function switchHref(link: CheckoutLink, lang: Lang): string {
  return `${checkoutPath(link)}?lang=${otherLang(lang)}`;
}

/** What the page shows the shopper will pay for: the total and the cart (signed into the form token). */
export function priceOf(link: CheckoutLink): ShownPrice {
  return { amount: link.terms.amount, currency: link.terms.currency, cart: cartDigest(link.terms.items) };
}

/** Whether the link still asks what the page showed: the same total and the same items. */
export function samePrice(shown: ShownPrice, link: CheckoutLink): boolean {
  return shown.amount === link.terms.amount && shown.currency === link.terms.currency && shown.cart === cartDigest(link.terms.items);
}
