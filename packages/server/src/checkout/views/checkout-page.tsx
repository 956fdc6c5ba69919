/** @jsxRuntime automatic @jsxImportSource preact */
// The checkout page of an Active link (SPEC §3): summary, shopper fields, card fields, pay button.
// Every merchant-supplied text goes through JSX text or attributes, which escape it; the link's
// description is for the merchant and is never rendered.
import type { CheckoutLink } from "../../db/checkout-repository.ts";
import type { ShopperField, ShopperInfo } from "../../domain/links/types.ts";
import { linkPath } from "../../domain/links/url.ts";
import { CARD_HOLDER_MAX_LENGTH, type FieldError, type FormField, type RedisplayValues, visibleShopperFields } from "../form.ts";
import { formatMoney, formatNumber, type Lang, MESSAGES, type Messages } from "../i18n.ts";
import type { PageTheme } from "../theme.ts";
import { Layout, LockIcon } from "./layout.tsx";

export type CheckoutAlert =
  | { kind: "declined"; reason: string }
  | { kind: "failed" }
  | { kind: "expired-form" }
  | { kind: "price-changed" };

export interface CheckoutPageProps {
  lang: Lang;
  nonce: string;
  theme: PageTheme;
  link: CheckoutLink;
  formToken: string;
  values: RedisplayValues;
  errors: FieldError[];
  alert?: CheckoutAlert | undefined;
  switchHref: string;
}

interface InputSpec {
  type?: "text" | "tel" | "email";
  autocomplete: string;
  inputmode?: "numeric" | "tel" | "email" | "text";
  multiline?: boolean;
  maxLength: number;
  spellcheck?: boolean;
  autocapitalize?: "off" | "words";
}

/** Browser autofill names (WHATWG autocomplete tokens) for each shopper field. */
const SHOPPER_INPUTS: Record<ShopperField, InputSpec> = {
  Ssn: { autocomplete: "off", inputmode: "numeric", maxLength: 11 },
  FullName: { autocomplete: "name", maxLength: 200, autocapitalize: "words" },
  Address: { autocomplete: "address-line1", maxLength: 200 },
  PostCode: { autocomplete: "postal-code", maxLength: 20 },
  City: { autocomplete: "address-level2", maxLength: 100 },
  Country: { autocomplete: "country-name", maxLength: 100 },
  Telephone: { type: "tel", autocomplete: "tel", inputmode: "tel", maxLength: 20 },
  EmailAddress: { type: "email", autocomplete: "email", inputmode: "email", maxLength: 254, spellcheck: false, autocapitalize: "off" },
  Comments: { autocomplete: "off", multiline: true, maxLength: 1000 },
};

export function labelOf(m: Messages, field: FormField): string {
  switch (field) {
    case "cardNumber":
      return m.cardNumber;
    case "cardExpiry":
      return m.cardExpiry;
    case "cardCvc":
      return m.cardCvc;
    case "cardHolder":
      return m.cardHolder;
    default:
      return m.fields[field];
  }
}

export function errorText(m: Messages, error: FieldError): string {
  return m.errors[error.problem](labelOf(m, error.field));
}

export function CheckoutPage(props: CheckoutPageProps) {
  const { lang, link, theme } = props;
  const m = MESSAGES[lang];
  const terms = link.terms;
  const tokenize = terms.type === "TokenizeByLink";
  const money = (amount: number) => formatMoney(amount, terms.currency, lang);
  const errorFor = new Map<FormField, string>();
  for (const error of props.errors) if (!errorFor.has(error.field)) errorFor.set(error.field, errorText(m, error));
  const shopperFields = visibleShopperFields(terms.shopperInfo);

  const field = (
    name: FormField,
    label: string,
    input: (describedBy: string | undefined, invalid: boolean) => preact.JSX.Element,
    options: { optional?: boolean; hint?: string } = {},
  ) => {
    const error = errorFor.get(name);
    const describedBy = [options.hint ? `${name}-hint` : "", error ? `${name}-error` : ""].filter(Boolean).join(" ") || undefined;
    return (
      <div class="field">
        <label for={name}>
          {label}
          {options.optional ? <span class="opt"> ({m.optional})</span> : null}
        </label>
        {options.hint ? (
          <span class="hint" id={`${name}-hint`}>
            {options.hint}
          </span>
        ) : null}
        {input(describedBy, error !== undefined)}
        {error ? (
          <p class="error" id={`${name}-error`}>
            {error}
          </p>
        ) : null}
      </div>
    );
  };

  const shopperInput = (entry: ShopperInfo) => {
    const spec = SHOPPER_INPUTS[entry.field];
    const prefilled = entry.requirementType === "Prefilled";
    const value = prefilled ? (entry.prefilledValue ?? "") : (props.values[entry.field] ?? "");
    return field(
      entry.field,
      m.fields[entry.field],
      (describedBy, invalid) =>
        spec.multiline ? (
          <textarea
            id={entry.field}
            name={entry.field}
            rows={3}
            maxLength={spec.maxLength}
            autocomplete={spec.autocomplete}
            required={entry.requirementType === "Required"}
            readOnly={prefilled}
            aria-describedby={describedBy}
            aria-invalid={invalid ? "true" : undefined}
          >
            {value}
          </textarea>
        ) : (
          <input
            id={entry.field}
            name={entry.field}
            // (one literal for the type checker: preact's input types are a union keyed on `type`)
            type={(spec.type ?? "text") as "text"}
            value={value}
            autocomplete={prefilled ? "off" : spec.autocomplete}
            inputmode={spec.inputmode}
            maxLength={spec.maxLength}
            spellcheck={spec.spellcheck}
            autocapitalize={spec.autocapitalize}
            required={entry.requirementType === "Required"}
            readOnly={prefilled}
            aria-describedby={describedBy}
            aria-invalid={invalid ? "true" : undefined}
          />
        ),
      { optional: entry.requirementType === "Optional" },
    );
  };

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
        <section class="card summary" aria-labelledby="summary-title">
          {tokenize ? (
            <>
              <h1 id="summary-title">{m.saveCardTitle}</h1>
              <p>{m.saveCardExplain(theme.name)}</p>
              <p class="total">
                <span>{m.amountDueNow}</span>
                <span>{money(0)}</span>
              </p>
            </>
          ) : (
            <>
              <h1 id="summary-title">{m.orderSummary}</h1>
              {terms.items.length > 0 ? (
                <table class="items">
                  <thead class="sr-only">
                    <tr>
                      <th scope="col">{m.itemHeader}</th>
                      <th scope="col">{m.amountHeader}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {terms.items.map((item) => {
                      const discount = item.amountWithoutDiscount - item.amount;
                      return (
                        <tr>
                          <td>
                            {item.name}
                            <span class="meta">{m.quantityTimes(formatNumber(item.quantity, lang), money(item.unitPrice))}</span>
                            {discount > 0 ? (
                              <span class="off">
                                {m.discount} −{money(discount)}
                              </span>
                            ) : null}
                          </td>
                          <td class="amt">
                            {discount > 0 ? <span class="was">{money(item.amountWithoutDiscount)}</span> : null}
                            {money(item.amount)}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              ) : null}
              <p class="total">
                <span>{m.total}</span>
                <span>{money(terms.amount)}</span>
              </p>
              {terms.recurringProcessingModel ? <p class="saves">{m.payAlsoSaves(theme.name)}</p> : null}
            </>
          )}
        </section>

        <section class="card" aria-label={tokenize ? m.saveCardTitle : m.cardDetails}>
          <form method="post" action={linkPath(link.reference)} novalidate data-checkout="">
            <input type="hidden" name="csrfToken" value={props.formToken} />
            <input type="hidden" name="lang" value={lang} />
            {props.alert ? <AlertBox alert={props.alert} m={m} tokenize={tokenize} /> : null}
            {props.errors.length > 0 ? (
              <div class="alert" role="alert" aria-labelledby="error-summary-title">
                <h2 id="error-summary-title">{m.errorSummaryTitle}</h2>
                <ul>
                  {[...errorFor].map(([name, text]) => (
                    <li>
                      <a href={`#${name}`}>{text}</a>
                    </li>
                  ))}
                </ul>
              </div>
            ) : null}

            {shopperFields.length > 0 ? (
              <fieldset>
                <legend>{m.yourDetails}</legend>
                {shopperFields.map(shopperInput)}
              </fieldset>
            ) : null}

            <fieldset>
              <legend>{m.cardDetails}</legend>
              {field("cardNumber", m.cardNumber, (describedBy, invalid) => (
                <input
                  id="cardNumber"
                  name="cardNumber"
                  type="text"
                  inputmode="numeric"
                  autocomplete="cc-number"
                  maxLength={23}
                  spellcheck={false}
                  autocapitalize="off"
                  required
                  placeholder="1234 1234 1234 1234"
                  aria-describedby={describedBy}
                  aria-invalid={invalid ? "true" : undefined}
                />
              ))}
              <div class="pair">
                {field(
                  "cardExpiry",
                  m.cardExpiry,
                  (describedBy, invalid) => (
                    <input
                      id="cardExpiry"
                      name="cardExpiry"
                      type="text"
                      inputmode="numeric"
                      autocomplete="cc-exp"
                      maxLength={7}
                      required
                      value={props.values.cardExpiry ?? ""}
                      aria-describedby={describedBy}
                      aria-invalid={invalid ? "true" : undefined}
                    />
                  ),
                  { hint: m.cardExpiryHint },
                )}
                {field(
                  "cardCvc",
                  m.cardCvc,
                  (describedBy, invalid) => (
                    <input
                      id="cardCvc"
                      name="cardCvc"
                      type="text"
                      inputmode="numeric"
                      autocomplete="cc-csc"
                      maxLength={4}
                      required
                      aria-describedby={describedBy}
                      aria-invalid={invalid ? "true" : undefined}
                    />
                  ),
                  { hint: m.cardCvcHint },
                )}
              </div>
              {field(
                "cardHolder",
                m.cardHolder,
                (describedBy, invalid) => (
                  <input
                    id="cardHolder"
                    name="cardHolder"
                    type="text"
                    autocomplete="cc-name"
                    maxLength={CARD_HOLDER_MAX_LENGTH}
                    spellcheck={false}
                    autocapitalize="words"
                    value={props.values.cardHolder ?? ""}
                    aria-describedby={describedBy}
                    aria-invalid={invalid ? "true" : undefined}
                  />
                ),
                { optional: true },
              )}
            </fieldset>

            <button type="submit" class="pay" data-busy={m.busyButton}>
              {tokenize ? m.saveButton : m.payButton(money(terms.amount))}
            </button>
            <p class="secure">
              <LockIcon />
              {m.secureNote}
            </p>
          </form>
        </section>
      </div>
    </Layout>
  );
}

function AlertBox({ alert, m, tokenize }: { alert: CheckoutAlert; m: Messages; tokenize: boolean }) {
  switch (alert.kind) {
    case "declined": {
      const explained = m.declineReasons[alert.reason];
      return (
        <div class="alert" role="alert" id="payment-alert">
          <h2>{tokenize ? m.declinedSaveTitle : m.declinedTitle}</h2>
          {explained ? <p>{explained}</p> : null}
          <p>
            {m.declineReasonLabel}: <strong>{alert.reason}</strong>
          </p>
          <p>{m.declinedNotCharged}</p>
        </div>
      );
    }
    case "failed":
      return (
        <div class="alert" role="alert" id="payment-alert">
          <h2>{m.failedTitle}</h2>
          <p>{m.failedText}</p>
        </div>
      );
    case "expired-form":
    case "price-changed": {
      // Nothing went wrong with the card: an informational notice, then the form again.
      const [title, text] =
        alert.kind === "expired-form" ? [m.expiredFormTitle, m.expiredFormText] : [m.priceChangedTitle, m.priceChangedText];
      return (
        <div class="alert info" role="alert" id="payment-alert">
          <h2>{title}</h2>
          <p>{text}</p>
        </div>
      );
    }
  }
}
