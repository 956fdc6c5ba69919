/** @jsxRuntime automatic @jsxImportSource preact */
// The payment-link form, for creating (both types) and editing: items as rows (spare empty rows
// without JavaScript, add/remove buttons with it), the shopper fields, every optional setting, and
// each problem shown beside its field.

import type { Terminal, Theme } from "../../db/merchants-repository.ts";
import { RECURRING_PROCESSING_MODELS, SHOPPER_FIELDS } from "../../domain/links/types.ts";
import { ISO_4217_EXPONENTS } from "../../domain/money/currencies.ts";
import { formatMoney, type Lang } from "../../web/i18n.ts";
import { SHOPPER_FIELD_LABELS } from "../../web/shopper-field-labels.ts";
import { PORTAL_MESSAGES } from "../i18n.ts";
import { itemsTotal, type LinkFormValues } from "../link-form.ts";
import { ItemInput, Problem } from "./form-bits.tsx";
import { Csrf } from "./layout.tsx";

export interface LinkFormProps {
  lang: Lang;
  mode: "create" | "edit";
  action: string;
  csrf: string;
  values: LinkFormValues;
  /** Field key → the text to show beside it; "form" for a problem without a field. */
  problems: Map<string, string>;
  terminals: Terminal[];
  themes: Theme[];
}

/** Rows a form without JavaScript offers for new items. */
const SPARE_ROWS = 2;

export function LinkForm(props: LinkFormProps) {
  const m = PORTAL_MESSAGES[props.lang].form;
  const { values, problems } = props;
  const field = (key: string) => ({
    id: key,
    name: key,
    "aria-invalid": problems.has(key) ? ("true" as const) : undefined,
    "aria-describedby": problems.has(key) ? `${key}-error` : undefined,
  });
  const rows = [...values.items, ...Array.from({ length: props.mode === "create" || values.items.length > 0 ? SPARE_ROWS : 0 }, empty)];
  return (
    <form method="post" action={props.action} novalidate>
      <Csrf token={props.csrf} />
      {problems.size > 0 ? (
        <div class="alert" role="alert">
          <p>{PORTAL_MESSAGES[props.lang].fieldErrors}</p>
          <ul>
            {[...problems.values()].map((text) => (
              <li key={text}>{text}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <div class="card">
        {props.mode === "create" ? (
          <>
            <fieldset class="field">
              <legend class="label">{m.type}</legend>
              <label>
                <input type="radio" name="type" value="PayByLink" checked={values.type !== "TokenizeByLink"} /> {m.typePay}
              </label>
              <label>
                <input type="radio" name="type" value="TokenizeByLink" checked={values.type === "TokenizeByLink"} /> {m.typeSave}
              </label>
            </fieldset>
            <div class="field">
              <label for="terminalIdentifier">{m.terminal}</label>
              <select {...field("terminalIdentifier")}>
                {props.terminals.map((t) => (
                  <option
                    key={t.terminalIdentifier}
                    value={t.terminalIdentifier}
                    selected={t.terminalIdentifier === values.terminalIdentifier}
                  >
                    {`${t.name} (${t.terminalIdentifier})${t.currencies ? ` · ${t.currencies.join(", ")}` : ""}`}
                  </option>
                ))}
              </select>
              <Problem id="terminalIdentifier" problems={problems} />
            </div>
          </>
        ) : null}
        <div class="row">
          <div class="field">
            <label for="currency">
              {m.currency} <span class="hint">{m.currencyHint}</span>
            </label>
            <input {...field("currency")} value={values.currency} maxlength={3} autocomplete="off" />
            <Problem id="currency" problems={problems} />
          </div>
          <div class="field">
            <label for="amount">
              {m.amount} <span class="hint">{m.amountHint}</span>
            </label>
            <input {...field("amount")} value={values.amount} inputmode="decimal" />
            <Problem id="amount" problems={problems} />
          </div>
        </div>
      </div>
      <fieldset class="card">
        <legend class="label">{m.items}</legend>
        <p class="hint">
          {m.itemAmountHint} {m.spareRows}
        </p>
        <Problem id="items" problems={problems} />
        <div data-items>
          {rows.map((item, i) => (
            <div class="row" data-item key={`${i}-${item.name}`}>
              <ItemInput label={m.itemName} name="itemName" index={i} value={item.name} problems={problems} keyName="name" wide />
              <ItemInput label={m.quantity} name="itemQuantity" index={i} value={item.quantity} problems={problems} keyName="quantity" />
              <ItemInput
                label={m.unitPrice}
                name="itemUnitPrice"
                index={i}
                value={item.unitPrice}
                problems={problems}
                keyName="unitPrice"
              />
              <ItemInput label={m.itemAmount} name="itemAmount" index={i} value={item.amount} problems={problems} keyName="amount" />
              <button type="button" class="secondary" data-remove-item hidden>
                {m.removeItem}
              </button>
            </div>
          ))}
        </div>
        <button type="button" class="secondary" data-add-item hidden>
          {m.addItem}
        </button>
        <ItemsTotal lang={props.lang} values={values} />
      </fieldset>
      {/* The rare choices wait behind "more" (the form was 4,300 px long on a phone); they open by
          themselves when an optional one is set or any has a problem, so nothing wrong is hidden. */}
      <details class="card more" open={SHOPPER_FIELDS.some((name) => values.shopper[name] || problems.has(`shopper-${name}`))}>
        <summary>{m.shopperFields}</summary>
        {SHOPPER_FIELDS.map((name) => {
          const entry = values.shopper[name];
          return (
            <div class="row" key={name}>
              <div class="field">
                <label for={`shopper-${name}`}>{SHOPPER_FIELD_LABELS[props.lang][name]}</label>
                <select {...field(`shopper-${name}`)}>
                  <option value="">{m.notAsked}</option>
                  {Object.entries(m.requirements).map(([value, label]) => (
                    <option key={value} value={value} selected={entry?.requirement === value}>
                      {label}
                    </option>
                  ))}
                </select>
                <Problem id={`shopper-${name}`} problems={problems} />
              </div>
              <div class="field">
                <label for={`prefill-${name}`}>{m.prefilledValue(SHOPPER_FIELD_LABELS[props.lang][name])}</label>
                <input id={`prefill-${name}`} name={`prefill-${name}`} value={entry?.value ?? ""} />
              </div>
            </div>
          );
        })}
      </details>
      <fieldset class="card">
        <legend class="label">{m.options}</legend>
        <div class="field">
          <label for="description">{m.description}</label>
          <textarea {...field("description")} maxlength={500}>
            {values.description}
          </textarea>
          <Problem id="description" problems={problems} />
        </div>
        <details
          class="more"
          open={
            RARE_OPTIONS.some((key) => problems.has(key)) ||
            Boolean(values.expiresAt || values.exactSalesCount || values.returnUrl || values.themeKey)
          }
        >
          <summary>{m.moreOptions}</summary>
          <div class="row">
            <div class="field">
              <label for="culture">{m.culture}</label>
              <select {...field("culture")}>
                <option value="is" selected={values.culture === "is"}>
                  Íslenska
                </option>
                <option value="en" selected={values.culture === "en"}>
                  English
                </option>
              </select>
            </div>
            <div class="field">
              <label for="themeKey">{m.theme}</label>
              <select {...field("themeKey")}>
                <option value="">{m.noTheme}</option>
                {props.themes.map((t) => (
                  <option key={t.themeKey} value={t.themeKey} selected={t.themeKey === values.themeKey}>
                    {t.name}
                  </option>
                ))}
              </select>
              <Problem id="themeKey" problems={problems} />
            </div>
          </div>
          <div class="row">
            <div class="field">
              <label for="expiresAt">{m.expiresAt}</label>
              <input {...field("expiresAt")} type="datetime-local" value={values.expiresAt} />
              <Problem id="expiresAt" problems={problems} />
            </div>
            <div class="field">
              <label for="exactSalesCount">
                {m.exactSalesCount} <span class="hint">{m.exactSalesCountHint}</span>
              </label>
              <input {...field("exactSalesCount")} value={values.exactSalesCount} inputmode="numeric" />
              <Problem id="exactSalesCount" problems={problems} />
            </div>
          </div>
          <div class="field">
            <label for="returnUrl">
              {m.returnUrl} <span class="hint">{m.returnUrlHint}</span>
            </label>
            <input {...field("returnUrl")} type="url" value={values.returnUrl} />
            <Problem id="returnUrl" problems={problems} />
          </div>
          {props.mode === "create" || values.type === "TokenizeByLink" ? (
            <div class="field">
              <label for="recurringProcessingModel">{m.recurring}</label>
              <select {...field("recurringProcessingModel")}>
                {RECURRING_PROCESSING_MODELS.map((model) => (
                  <option key={model} value={model} selected={values.recurringProcessingModel === model}>
                    {model}
                  </option>
                ))}
              </select>
              <Problem id="recurringProcessingModel" problems={problems} />
            </div>
          ) : null}
        </details>
      </fieldset>
      <div class="actions">
        <button type="submit">{props.mode === "create" ? m.create : m.save}</button>
      </div>
    </form>
  );
}

/** Currencies whose amounts are not written with two decimals, for the script's running total. */
const EXPONENTS = JSON.stringify(Object.fromEntries([...ISO_4217_EXPONENTS].filter(([, exponent]) => exponent !== 2)));

/**
 * The items' total: rendered by the server (a form shown again after a problem, the edit form) and
 * kept up to date by the portal's script as the merchant types. An output element is a polite live
 * region, so a screen reader hears the new total without losing its place.
 */
function ItemsTotal(props: { lang: Lang; values: LinkFormValues }) {
  const m = PORTAL_MESSAGES[props.lang].form;
  const total = itemsTotal(props.values, props.lang);
  return (
    <p class="items-total">
      <span id="items-total-label">{m.itemsTotal}</span>{" "}
      <output data-total data-lang={props.lang} data-exponents={EXPONENTS} aria-labelledby="items-total-label" aria-live="polite">
        {total === null ? "—" : formatMoney(total, props.values.currency, props.lang)}
      </output>
    </p>
  );
}

/** The options behind "more" on the form. */
const RARE_OPTIONS = ["culture", "themeKey", "expiresAt", "exactSalesCount", "returnUrl", "recurringProcessingModel"];

function empty() {
  return { name: "", quantity: "", unitPrice: "", amount: "" };
}
