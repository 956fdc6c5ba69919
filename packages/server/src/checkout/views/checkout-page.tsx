/** @jsxRuntime automatic @jsxImportSource preact */
// The checkout page of an Active link: summary, shopper fields, card fields, pay button. Every
// merchant-supplied text goes through JSX text or attributes, which escape it; the link's
// description is for the merchant and is never rendered. The first view is kept keyed on these
// props (docs/decisions.md#checkout-pages): the views read nothing else (no clock, no request).
import type { CheckoutLink } from "../../db/checkout-repository.ts";
import { checkoutPath } from "../../domain/links/url.ts";
import { formatMoney, type Lang } from "../../web/i18n.ts";
import type { PageTheme } from "../../web/theme.ts";
import type { FieldError, RedisplayValues } from "../form.ts";
import { MESSAGES } from "../i18n.ts";
import { AlertBox, type CheckoutAlert, ErrorSummary } from "./alerts.tsx";
import { CardFields } from "./card-fields.tsx";
import { fieldErrorTexts } from "./field.tsx";
import { Layout, LockIcon } from "./layout.tsx";
import { OrderSummary } from "./order-summary.tsx";
import { type SavedCardOption, SavedCards } from "./saved-cards.tsx";
import { ShopperFields } from "./shopper-fields.tsx";

export interface CheckoutPageProps {
  lang: Lang;
  nonce: string;
  theme: PageTheme;
  link: Pick<CheckoutLink, "reference" | "terms" | "session">;
  formToken: string;
  values: RedisplayValues;
  errors: FieldError[];
  alert?: CheckoutAlert | undefined;
  switchHref: string;
  /** A session shopper's saved cards, offered above the card form; empty otherwise. */
  savedCards?: SavedCardOption[] | undefined;
  /** The `savedCard` choice posted before ("" a new card), when the form comes back. */
  savedCardChoice?: string | undefined;
  /** A real processor takes the card on its own page: no card fields here (docs/processors.md). */
  hosted?: boolean | undefined;
}

export function CheckoutPage(props: CheckoutPageProps) {
  const { lang, link, theme } = props;
  const m = MESSAGES[lang];
  const terms = link.terms;
  const tokenize = terms.type === "TokenizeByLink";
  const errors = fieldErrorTexts(m, props.errors);

  return (
    <Layout
      lang={lang}
      title={`${tokenize ? m.htmlTitleSave : m.htmlTitlePay} · ${theme.name}`}
      nonce={props.nonce}
      theme={theme}
      switchHref={props.switchHref}
      script
    >
      <div class="grid">
        <OrderSummary m={m} lang={lang} terms={terms} merchant={theme.name} />

        <section class="card" aria-label={m.cardDetails}>
          <form method="post" action={checkoutPath(link)} novalidate data-checkout="">
            <input type="hidden" name="csrfToken" value={props.formToken} />
            <input type="hidden" name="lang" value={lang} />
            {props.alert ? <AlertBox alert={props.alert} m={m} tokenize={tokenize} /> : null}
            {props.errors.length > 0 ? <ErrorSummary m={m} errors={errors} /> : null}
            <ShopperFields m={m} shopperInfo={terms.shopperInfo} values={props.values} errors={errors} />
            {props.hosted ? null : (
              <>
                {props.savedCards?.length ? <SavedCards m={m} cards={props.savedCards} chosen={props.savedCardChoice} /> : null}
                <div class="newcard">
                  <CardFields m={m} values={props.values} errors={errors} />
                </div>
              </>
            )}

            <button type="submit" class="pay" data-busy={m.busyButton}>
              {props.hosted
                ? tokenize
                  ? m.hostedContinueSave
                  : m.hostedContinue(formatMoney(terms.amount, terms.currency, lang))
                : tokenize
                  ? m.saveButton
                  : m.payButton(formatMoney(terms.amount, terms.currency, lang))}
            </button>
            <p class="secure">
              <LockIcon />
              {props.hosted ? m.hostedNote : tokenize || terms.recurringProcessingModel ? m.secureNoteSave : m.secureNote}
            </p>
            {link.session?.abandonUrl ? (
              <p class="back">
                <a href={link.session.abandonUrl}>{m.backToShop}</a>
              </p>
            ) : null}
          </form>
        </section>
      </div>
    </Layout>
  );
}
