// The checkout page speaks Icelandic and English. Every text a shopper can see is in i18n/, once
// per language; this module picks the table and formats money, numbers and dates the way each
// language writes them.
import { displayExponent, wireExponent } from "../domain/money/currencies.ts";
import { en, type Messages } from "./i18n/en.ts";
import { is } from "./i18n/is.ts";

export type { Messages } from "./i18n/en.ts";

export type Lang = "is" | "en";

export function isLang(value: unknown): value is Lang {
  return value === "is" || value === "en";
}

/** The language the switch link offers. */
export function otherLang(lang: Lang): Lang {
  return lang === "is" ? "en" : "is";
}

export const MESSAGES: Record<Lang, Messages> = { is, en };

export type FieldProblem = keyof Messages["errors"];

const LOCALES: Record<Lang, string> = { is: "is-IS", en: "en-GB" };

/**
 * A wire amount (minor units; ISK in hundredths) as the shopper reads it: 48900 ISK → "489 kr."
 * in Icelandic, "ISK 489" in English. Integer arithmetic, no floating point rounding surprises.
 */
export function formatMoney(amount: number, currency: string, lang: Lang): string {
  const shown = displayExponent(currency);
  const divisor = 10 ** wireExponent(currency);
  const whole = Math.trunc(amount / divisor);
  const fraction = amount - whole * divisor;
  const value = Number(`${whole}.${String(fraction).padStart(wireExponent(currency), "0")}`);
  return moneyFormat(lang, currency, shown)
    .format(value)
    .replace(/\u00a0/g, " ");
}

export function formatNumber(value: number, lang: Lang): string {
  return cached(`number ${lang}`, () => new Intl.NumberFormat(LOCALES[lang])).format(value);
}

// Building an Intl formatter costs far more than using one (it was most of a checkout page's CPU
// time): one per language, currency and kind, made on first use; a few hundred at most (currencies are ISO 4217 codes).
const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();
function cached<T extends Intl.NumberFormat | Intl.DateTimeFormat>(key: string, make: () => T): T {
  let formatter = formatters.get(key) as T | undefined;
  if (formatter === undefined) {
    formatter = make();
    formatters.set(key, formatter);
  }
  return formatter;
}

function moneyFormat(lang: Lang, currency: string, shown: number): Intl.NumberFormat {
  return cached(
    `money ${lang} ${currency} ${shown}`,
    () =>
      new Intl.NumberFormat(LOCALES[lang], {
        style: "currency",
        currency,
        currencyDisplay: lang === "is" && currency === "ISK" ? "symbol" : "code",
        minimumFractionDigits: shown,
        maximumFractionDigits: shown,
      }),
  );
}

export function formatDateTime(date: Date, lang: Lang): string {
  return cached(
    `date ${lang}`,
    () => new Intl.DateTimeFormat(LOCALES[lang], { dateStyle: "long", timeStyle: "short", timeZone: "Atlantic/Reykjavik" }),
  ).format(date);
}
