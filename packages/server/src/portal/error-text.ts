// What a portal form says about an error of the shared services (the one catalogue): on an English
// page the API's own message, on an Icelandic page the Icelandic text for its code and the field it
// is shown beside (i18n/is-api-errors.ts). The rule that raised it is the services' alone.
import type { AppError } from "../domain/errors.ts";
import type { Lang } from "../web/i18n.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";

/**
 * `field` is the form key the error is shown beside ("amount", "item-2-unitPrice",
 * "shopper-FullName", "logoUrl", "refund"…); item rows and shopper rows share their texts.
 */
export function errorText(error: AppError, field: string, lang: Lang): string {
  const texts = PORTAL_MESSAGES[lang].apiErrors;
  if (!texts) return error.message;
  const rule = field.replace(/^item-\d+-/, "item-").replace(/^shopper-.*$/, "shopper");
  return texts.byRule[`${error.code}:${rule}`] ?? texts.byCode[error.code];
}

/**
 * An error shown on its own (above the refund form, not beside a field) as a sentence: the API's
 * messages start with the field's name in lower case ("amount ISK 3,000 is more than…").
 */
export function asSentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
