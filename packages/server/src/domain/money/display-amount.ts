// Amounts as people type them in the portal ("4890" krónur, "12.50" euros) and the wire's minor
// units (ISK counted in hundredths, docs/decisions.md docs/decisions.md#wire-compatibility). Integer arithmetic only.
import { displayExponent, wireExponent } from "./currencies.ts";

/**
 * The wire amount of a typed amount, or null when the text is not an amount in this currency. The
 * page's language decides the marks: Icelandic groups thousands with "." and writes decimals with
 * "," ("18.900", "1.234,50"), English the other way round ("18,900", "1,234.50"). Plain digits with
 * either mark as the decimal point ("12.50", "12,50") are read too when that is the only reading.
 */
export function parseDisplayAmount(text: string, currency: string, lang: "is" | "en" = "en"): number | null {
  const shown = displayExponent(currency);
  const compact = text.trim().replace(/[\s\u00a0]/g, "");
  const [group, point] = lang === "is" ? [".", ","] : [",", "."];
  const decimals = shown === 0 ? "" : `(?:\\${point}(\\d{1,${shown}}))?`;
  const written = new RegExp(`^(\\d{1,3}(?:\\${group}\\d{3})+|\\d{1,15})${decimals}$`).exec(compact);
  if (written) return wireAmount(written[1]!.replaceAll(group, ""), written[2], currency);
  const plain = (shown === 0 ? /^(\d{1,15})$/ : new RegExp(`^(\\d{1,15})(?:[.,](\\d{1,${shown}}))?$`)).exec(compact);
  return plain ? wireAmount(plain[1]!, plain[2], currency) : null;
}

function wireAmount(wholeDigits: string, fractionDigits: string | undefined, currency: string): number | null {
  const shown = displayExponent(currency);
  const wire = wireExponent(currency);
  if (wholeDigits.length > 15) return null;
  const fraction = Number((fractionDigits ?? "").padEnd(shown, "0") || "0");
  const value = Number(wholeDigits) * 10 ** wire + fraction * 10 ** (wire - shown);
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
