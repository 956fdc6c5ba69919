/** @jsxRuntime automatic @jsxImportSource preact */
// The pages of one link, shared by its GET and its POST: the checkout form (first shown, or again
// with the shopper's details and what went wrong) and the page that says why it takes no payment.
import type { FastifyReply } from "fastify";
import type { CheckoutLink } from "../db/checkout-repository.ts";
import { cartDigest } from "../domain/links/cart.ts";
import type { LinkStatus } from "../domain/links/types.ts";
import { linkPath } from "../domain/links/url.ts";
import type { FieldError, RedisplayValues } from "./form.ts";
import { issueFormToken, type ShownPrice } from "./form-token.ts";
import { type Lang, otherLang } from "./i18n.ts";
import { sendPage } from "./page-response.tsx";
import type { PageTheme } from "./theme.ts";
import type { CheckoutAlert } from "./views/alerts.tsx";
import { CheckoutPage } from "./views/checkout-page.tsx";
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
  return sendPage(
    reply,
    status,
    (nonce) => (
      <CheckoutPage
        lang={view.lang}
        nonce={nonce}
        theme={view.theme}
        link={link}
        formToken={view.formToken}
        values={view.values}
        errors={view.errors}
        alert={view.alert}
        switchHref={switchHref(link, view.lang)}
      />
    ),
    { returnUrl: link.terms.returnUrl },
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
