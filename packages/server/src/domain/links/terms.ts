// The business rules of a link's terms (docs/api.md#create), shared by create and update. The request
// schema has already checked shapes, types, enumerations and lengths; these are the rules that
// need more than one field or a table.
import { AppError } from "../errors.ts";
import { checkWholeKronur, isKnownCurrency } from "../money/currencies.ts";
import { isPlainHost } from "./return-url-host.ts";
import { checkShopperValue } from "./shopper-fields.ts";
import type { Item, LinkType, ShopperInfo } from "./types.ts";

export function describe(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/** Normalises and checks a currency code: known ISO 4217 (2008). */
export function checkCurrency(raw: string): string {
  const currency = raw.toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency) || !isKnownCurrency(currency)) {
    throw new AppError("UnsupportedValue", `currency ${describe(raw)} is not a supported ISO 4217 currency code.`).at("currency");
  }
  return currency;
}

/** Amount rules by link type and currency, and the cart's consistency with the amount. */
export function checkAmountAndItems(type: LinkType, amount: number, currency: string, items: Item[]): void {
  if (type === "TokenizeByLink") {
    if (amount !== 0)
      throw new AppError("TokenizeAmountNotZero", `amount must be 0 for a TokenizeByLink link, got ${amount}.`).at("amount");
    if (items.length > 0)
      throw new AppError("ConflictingFields", "items cannot be used with a TokenizeByLink link; send an empty list or leave it out.").at(
        "items",
      );
    return;
  }
  if (amount <= 0) throw new AppError("MustBeGreater", `amount must be greater than 0 for a PayByLink link, got ${amount}.`).at("amount");
  checkWholeKronur(amount, currency);
  items.forEach((item, index) => {
    if (item.amount > item.amountWithoutDiscount) {
      throw new AppError(
        "ItemAboveUndiscounted",
        `items[${index}].amount (${item.amount}) cannot be higher than items[${index}].amountWithoutDiscount (${item.amountWithoutDiscount}).`,
      ).at(`items[${index}].amount`);
    }
  });
  if (items.length > 0) {
    const sum = items.reduce((total, item) => total + item.amount, 0);
    if (sum !== amount) {
      throw new AppError("SumMismatch", `the item amounts add up to ${sum}, but amount is ${amount}; they must be equal.`).at("amount");
    }
  }
}

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))?)?$/i;

/**
 * Parses an ISO 8601 date-time (2008 when it is not one). Checked field by field, because
 * Date.parse rolls impossible dates over (Feb 30 → Mar 2) and reads a time without an offset in
 * the server's own time zone. Here a time without an offset, and a bare date, are UTC.
 */
export function parseIsoDateTime(field: string, text: string): Date {
  const invalid = () =>
    new AppError("UnsupportedValue", `${field} ${describe(text)} is not an ISO 8601 date-time such as "2030-01-31T23:59:59Z".`).at(field);
  const match = ISO_DATE_TIME.exec(text);
  if (!match) throw invalid();
  const [, y, mo, d, h = "0", mi = "0", sec = "0", fraction = "", zone, sign, offH = "0", offM = "0"] = match;
  const year = Number(y),
    month = Number(mo),
    day = Number(d),
    hour = Number(h),
    minute = Number(mi),
    second = Number(sec);
  // Year 0 and before exist for Date.parse but not for PostgreSQL's timestamptz.
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeapYear(year) ? 1 : 0);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) throw invalid();
  const offsetMinutes = zone && zone.toUpperCase() !== "Z" ? (sign === "-" ? -1 : 1) * (Number(offH) * 60 + Number(offM)) : 0;
  if (Number(offH) > 23 || Number(offM) > 59) throw invalid();
  const milliseconds = Number(fraction.padEnd(3, "0").slice(0, 3));
  // setUTCFullYear, not Date.UTC: the latter maps years 0–99 to 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, milliseconds);
  date.setTime(date.getTime() - offsetMinutes * 60_000);
  if (date.getUTCFullYear() < 1) throw invalid();
  return date;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** An expiry time: ISO 8601 (2008) and in the future (2005). */
export function parseFutureExpiry(field: string, text: string, now: Date): Date {
  const date = parseIsoDateTime(field, text);
  if (date.getTime() <= now.getTime()) {
    throw new AppError("TimeInPast", `${field} ${describe(text)} is in the past; it must be a future time.`).at(field);
  }
  return date;
}

/**
 * Where the shopper is sent after paying: an absolute https URL, or http for a local
 * development server. Anything else could leak the checkout reference or be a script URL.
 */
export function checkReturnUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AppError("UnsupportedValue", `returnUrl ${describe(text)} is not an absolute URL.`).at("returnUrl");
  }
  const local = url.hostname === "localhost" || url.hostname === "127.0.0.1";
  if (url.protocol !== "https:" && !(url.protocol === "http:" && local)) {
    throw new AppError("UnsupportedValue", `returnUrl ${describe(text)} must use https:// (http:// is allowed only for localhost).`).at(
      "returnUrl",
    );
  }
  if (!isPlainHost(url.hostname)) {
    throw new AppError(
      "UnsupportedValue",
      `returnUrl ${describe(text)} must name its host as a DNS name (letters, digits, hyphens, dots) or an IP address.`,
    ).at("returnUrl");
  }
  return url.toString();
}

/** `name`: the field's name as sent (shopperInfo or its alias), for the error messages. */
export function checkShopperInfo(
  entries: Array<{ field: ShopperInfo["field"]; requirementType: ShopperInfo["requirementType"]; prefilledValue?: string | null }>,
  name = "shopperInfo",
): ShopperInfo[] {
  const seen = new Set<string>();
  return entries.map((entry, index) => {
    const where = `${name}[${index}]`;
    if (seen.has(entry.field))
      throw new AppError("ConflictingFields", `${where}.field ${describe(entry.field)} is listed more than once.`).at(`${where}.field`);
    seen.add(entry.field);
    const prefilled = entry.prefilledValue ?? null;
    if (entry.requirementType === "Prefilled") {
      if (prefilled === null || prefilled.trim() === "") {
        throw new AppError("RequiredFieldMissing", `${where}.prefilledValue is required when requirementType is "Prefilled".`).at(
          `${where}.prefilledValue`,
        );
      }
      const problem = checkShopperValue(entry.field, prefilled);
      if (problem !== null) {
        throw new AppError(
          "UnsupportedValue",
          `${where}.prefilledValue ${describe(prefilled)} is not a valid ${entry.field} (${problem.replace(/_/g, " ")}).`,
        ).at(`${where}.prefilledValue`);
      }
      return { field: entry.field, requirementType: entry.requirementType, prefilledValue: prefilled.trim() };
    }
    if (prefilled !== null) {
      throw new AppError(
        "ConflictingFields",
        `${where}.prefilledValue can only be used when requirementType is "Prefilled", not ${describe(entry.requirementType)}.`,
      ).at(`${where}.prefilledValue`);
    }
    return { field: entry.field, requirementType: entry.requirementType, prefilledValue: null };
  });
}

/** Two names for one field (see docs/decisions.md docs/decisions.md#wire-compatibility): at most one may be given. */
export function pickAlias<T>(primaryName: string, primary: T | undefined, aliasName: string, alias: T | undefined): T | undefined {
  if (primary !== undefined && alias !== undefined) {
    throw new AppError(
      "ConflictingFields",
      `${primaryName} and ${aliasName} are two names for the same setting; send only one of them.`,
    ).at(primaryName);
  }
  return primary !== undefined ? primary : alias;
}
