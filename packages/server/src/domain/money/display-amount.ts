// Amounts as people type them in the portal ("4890" krónur, "12.50" euros) and the wire's minor
// units (ISK counted in hundredths, docs/decisions.md docs/decisions.md#wire-compatibility). Integer arithmetic only.
import { displayExponent, wireExponent } from "./currencies.ts";

/** The wire amount of a typed amount, or null when the text is not an amount in this currency. */
export function parseDisplayAmount(text: string, currency: string): number | null {
  const shown = displayExponent(currency);
  const wire = wireExponent(currency);
  const trimmed = text.trim().replace(/[\s\u00a0]/g, "");
  const pattern = shown === 0 ? /^(\d{1,15})$/ : new RegExp(`^(\\d{1,15})(?:[.,](\\d{1,${shown}}))?$`);
  const match = pattern.exec(trimmed);
  if (!match) return null;
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? "").padEnd(shown, "0") || "0");
  const value = whole * 10 ** wire + fraction * 10 ** (wire - shown);
  return Number.isSafeInteger(value) ? value : null;
}

/** A wire amount as the portal's inputs show it: "4890" for 489000 ISK, "12.50" for 1250 EUR. */
export function formatDisplayAmount(amount: number, currency: string): string {
  const shown = displayExponent(currency);
  const divisor = 10 ** wireExponent(currency);
  const whole = Math.trunc(amount / divisor);
  const rest = amount - whole * divisor;
  if (shown === 0) return String(whole);
  const fraction = String(Math.trunc(rest / 10 ** (wireExponent(currency) - shown))).padStart(shown, "0");
  return `${whole}.${fraction}`;
}
