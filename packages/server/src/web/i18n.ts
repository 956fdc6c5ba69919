// The language machinery of every page, the checkout's and the portal's: Icelandic and English,
// the browser's preference, and money, numbers and dates written the way each language writes
// them, so a sum reads the same on both. Each area keeps its own texts (checkout/i18n/,
// portal/i18n/).
import type { FastifyRequest } from "fastify";
import { displayExponent, wireExponent } from "../domain/money/currencies.ts";

export type Lang = "is" | "en";

export function isLang(value: unknown): value is Lang {
  return value === "is" || value === "en";
}

/** The language the switch link offers. */
export function otherLang(lang: Lang): Lang {
  return lang === "is" ? "en" : "is";
}

/** The browser's preference, for pages that have no better clue. */
export function acceptLanguage(request: FastifyRequest): Lang {
  const header = request.headers["accept-language"] ?? "";
  return /^\s*is\b/i.test(header) ? "is" : "en";
}

const LOCALES: Record<Lang, string> = { is: "is-IS", en: "en-GB" };

/**
 * A wire amount (minor units; ISK in hundredths) as the shopper reads it: 48900 ISK → "489 kr."
 * in Icelandic, "ISK 489" in English. Integer arithmetic, no floating point rounding surprises.
 */
export function formatMoney(amount: number, currency: string, lang: Lang): string {
  // A session's discount line is negative: formatted as its size, with the sign in front.
  if (amount < 0) return `−${formatMoney(-amount, currency, lang)}`;
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
