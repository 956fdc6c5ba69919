// Reads and checks the checkout form. Pure: takes the posted fields and the link's
// shopper-field settings, returns either the values to pay with or the problems to show.
import { checkShopperValue } from "../domain/links/shopper-fields.ts";
import type { ShopperField, ShopperInfo } from "../domain/links/types.ts";
import { cardBrand, formatExpiry, lastFour, luhnValid, maskCardNumber } from "../payments/cards.ts";
import type { CardDetails } from "../payments/processor.ts";
import type { FieldProblem } from "./i18n.ts";

/** Form field names: part of the contract, as posted by the page and by scripted clients. */
export type FormField = "cardNumber" | "cardExpiry" | "cardCvc" | "cardHolder" | ShopperField;

export const CARD_HOLDER_MAX_LENGTH = 100;

export interface FieldError {
  field: FormField;
  problem: FieldProblem;
}

/**
 * What the page may show again after a failed attempt: never the card number or the CVC. (The
 * answer to the very post whose other fields were wrong adds the number: `typedCardNumber`.)
 */
export type RedisplayValues = Partial<Record<FormField, string>>;

export interface ValidCheckout<Card = CardDetails> {
  card: Card;
  /** Safe to store: brand, masked number, last four, `MM/YYYY`. */
  cardSummary: Card extends null ? null : { brand: string; masked: string; last4: string; expiry: string };
  answers: Array<{ field: ShopperField; value: string }>;
}

export type CheckoutFormResult<Card = CardDetails> =
  | { ok: true; value: ValidCheckout<Card>; redisplay: RedisplayValues }
  | { ok: false; errors: FieldError[]; redisplay: RedisplayValues };

/** The form paid with a saved card (the `savedCard` field): the shopper fields only, no card fields. */
export function readSavedCardForm(body: Record<string, unknown>, shopperInfo: ShopperInfo[]): CheckoutFormResult<null> {
  const { errors, redisplay, answers } = readShopperFields(body, shopperInfo);
  if (errors.length > 0) return { ok: false, errors, redisplay };
  return { ok: true, redisplay, value: { card: null, cardSummary: null, answers } };
}

/**
 * A posted field as one string: repeated fields take the first value; anything else is empty.
 * Control characters (but tab and line breaks) and unpaired surrogates are dropped: PostgreSQL
 * cannot store NUL or broken UTF-16 in jsonb, and no shopper means to type them.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: dropping control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

export function formText(body: Record<string, unknown>, name: string): string {
  if (!Object.hasOwn(body, name)) return "";
  const raw = body[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (typeof value !== "string") return "";
  return value.replace(CONTROL_CHARACTERS, "").replace(/[\uD800-\uDFFF]/g, (char, index: number, text: string) => {
    const code = char.charCodeAt(0);
    const pairedHigh = code <= 0xdbff && /[\uDC00-\uDFFF]/.test(text[index + 1] ?? "");
    const pairedLow = code >= 0xdc00 && /[\uD800-\uDBFF]/.test(text[index - 1] ?? "");
    return pairedHigh || pairedLow ? char : "";
  });
}

/**
 * The card number as the shopper typed it, for the one answer that shows the form again because a
 * field was wrong (422): the shopper corrects the field instead of typing the card again. Only a
 * plausible number (digits, spaces, dashes), never the CVC, and never kept in `redisplay`, so no
 * other answer, page cache or log gets it (docs/decisions.md#card-data-and-logs).
 */
export function typedCardNumber(body: Record<string, unknown>): RedisplayValues {
  const typed = formText(body, "cardNumber").trim();
  return /^[\d -]{1,23}$/.test(typed) ? { cardNumber: typed } : {};
}

/** The shopper fields the page asks for, in the merchant's order (Hidden ones are not asked). */
export function visibleShopperFields(shopperInfo: ShopperInfo[]): ShopperInfo[] {
  return shopperInfo.filter((entry) => entry.requirementType !== "Hidden");
}

export function readCheckoutForm(body: Record<string, unknown>, shopperInfo: ShopperInfo[], now: Date): CheckoutFormResult {
  const { errors, redisplay, answers } = readShopperFields(body, shopperInfo);
  readCardFields(body, now, errors, redisplay);
  const numberText = formText(body, "cardNumber");
  const digits = numberText.replace(/[\s-]/g, "");
  const expiry = parseExpiry(formText(body, "cardExpiry"), now);
  const cvc = formText(body, "cardCvc").trim();
  const holder = formText(body, "cardHolder").trim().replace(/\s+/g, " ");
  if (errors.length > 0 || typeof expiry !== "object") return { ok: false, errors, redisplay };
  const { brand } = cardBrand(digits);
  return {
    ok: true,
    redisplay,
    value: {
      card: { number: digits, expiryMonth: expiry.month, expiryYear: expiry.year, cvc, holder },
      cardSummary: { brand, masked: maskCardNumber(digits), last4: lastFour(digits), expiry: formatExpiry(expiry.month, expiry.year) },
      answers,
    },
  };
}

function readShopperFields(body: Record<string, unknown>, shopperInfo: ShopperInfo[]) {
  const errors: FieldError[] = [];
  const redisplay: RedisplayValues = {};
  const answers: ValidCheckout["answers"] = [];

  for (const entry of shopperInfo) {
    switch (entry.requirementType) {
      case "Hidden":
        // Not asked, so not accepted either: a posted value is ignored.
        continue;
      case "Prefilled": {
        // Read-only on the page; the stored value counts, whatever was posted.
        const value = entry.prefilledValue ?? "";
        redisplay[entry.field] = value;
        if (value !== "") answers.push({ field: entry.field, value });
        continue;
      }
      case "Required":
      case "Optional": {
        const raw = formText(body, entry.field);
        redisplay[entry.field] = raw.slice(0, 2000);
        const value = raw.trim();
        if (value === "") {
          if (entry.requirementType === "Required") errors.push({ field: entry.field, problem: "required" });
          continue;
        }
        const problem = checkShopperValue(entry.field, value);
        if (problem !== null) errors.push({ field: entry.field, problem: problem === "empty" ? "required" : problem });
        else answers.push({ field: entry.field, value });
      }
    }
  }
  return { errors, redisplay, answers };
}

function readCardFields(body: Record<string, unknown>, now: Date, errors: FieldError[], redisplay: RedisplayValues): void {
  const numberText = formText(body, "cardNumber");
  const digits = numberText.replace(/[\s-]/g, "");
  if (digits === "") errors.push({ field: "cardNumber", problem: "card_number_required" });
  else if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits)) errors.push({ field: "cardNumber", problem: "card_number_invalid" });

  const expiryText = formText(body, "cardExpiry");
  redisplay.cardExpiry = expiryText.slice(0, 10);
  const expiry = parseExpiry(expiryText, now);
  if (expiry === "empty") errors.push({ field: "cardExpiry", problem: "card_expiry_required" });
  else if (expiry === "invalid") errors.push({ field: "cardExpiry", problem: "card_expiry_invalid" });
  else if (expiry === "past") errors.push({ field: "cardExpiry", problem: "card_expiry_past" });

  const cvc = formText(body, "cardCvc").trim();
  if (cvc === "") errors.push({ field: "cardCvc", problem: "card_cvc_required" });
  else if (!/^\d{3,4}$/.test(cvc)) errors.push({ field: "cardCvc", problem: "card_cvc_invalid" });

  const holderText = formText(body, "cardHolder");
  redisplay.cardHolder = holderText.slice(0, 200);
  const holder = holderText.trim().replace(/\s+/g, " ");
  if (holder.length > CARD_HOLDER_MAX_LENGTH) errors.push({ field: "cardHolder", problem: "card_holder_too_long" });
}

/**
 * `MM/YY` (also `MM/YYYY`, `MMYY`, spaces around the slash). A card is valid to the end of its
 * expiry month; dates more than 20 years ahead are typing mistakes.
 */
export function parseExpiry(text: string, now: Date): { month: number; year: number } | "empty" | "invalid" | "past" {
  const trimmed = text.trim();
  if (trimmed === "") return "empty";
  const match = /^(\d{1,2})\s*[/-]?\s*(\d{2}|\d{4})$/.exec(trimmed);
  if (!match || (!/[/-]/.test(trimmed) && match[1]!.length !== 2)) return "invalid";
  const month = Number(match[1]);
  const year = match[2]!.length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
  if (month < 1 || month > 12) return "invalid";
  const currentYear = now.getUTCFullYear();
  const currentMonth = now.getUTCMonth() + 1;
  if (year < currentYear || (year === currentYear && month < currentMonth)) return "past";
  if (year > currentYear + 20) return "invalid";
  return { month, year };
}
