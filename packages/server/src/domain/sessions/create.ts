// The rules of a session's create request (docs/api.md#hosted-checkout-sessions): what the schema
// cannot say (digit-string amounts, the 24-hour life, the looser item rules) and the session as a
// one-sale link. Pure: values in, terms or an AppError out.
import { AppError } from "../errors.ts";
import { isPlainHost } from "../links/return-url-host.ts";
import { checkShopperValue } from "../links/shopper-fields.ts";
import { checkCurrency, describe, parseFutureExpiry } from "../links/terms.ts";
import { type Item, type LinkTerms, MAX_AMOUNT } from "../links/types.ts";
import { checkWholeKronur } from "../money/currencies.ts";
import { checkMerchantReference } from "../payments/rules.ts";
import { type CreateSessionRequest, MAX_SESSION_LIFE_MS, type SessionItemInput, type SessionTerms, type WireAmount } from "./types.ts";

export interface NewSession {
  terms: LinkTerms;
  session: SessionTerms;
}

/** Turns a create request into the session's terms, or throws the first rule it breaks. */
export function sessionFromCreateRequest(request: CreateSessionRequest, now: Date): NewSession {
  const currency = checkCurrency(request.currency);
  const recurringProcessingModel = request.recurringProcessingModel ?? null;
  const amount = wireAmount("amount", request.amount, { negative: false });
  // Amount 0 saves the card and charges nothing: only when a card is to be saved.
  if (amount === 0 && recurringProcessingModel === null) {
    throw new AppError(
      "MustBeGreater",
      "amount must be greater than 0 (0 is allowed only with recurringProcessingModel, to save the card).",
    ).at("amount");
  }
  checkWholeKronur(amount, currency);

  const items = (request.items ?? []).map((item, index) => sessionItem(item, index));
  if (amount > 0 && items.length > 0) {
    const sum = items.reduce((total, item) => total + item.amount, 0);
    if (sum !== amount) {
      throw new AppError("SumMismatch", `the item amounts add up to ${sum}, but amount is ${amount}; they must be equal.`).at("amount");
    }
  }

  const orderReference = checkMerchantReference("reference", request.reference);

  const validUntil = request.expiresAt == null ? new Date(now.getTime() + MAX_SESSION_LIFE_MS) : sessionExpiry(request.expiresAt, now);

  const shopperContact = request.shopperContact ?? null;
  if (shopperContact !== null && checkShopperValue("EmailAddress", shopperContact) !== null) {
    throw new AppError("UnsupportedValue", `shopperContact ${describe(shopperContact)} is not an e-mail address.`).at("shopperContact");
  }

  return {
    terms: {
      // A session at amount 0 saves a card and nothing else: the tokenize link's path and status.
      type: amount === 0 ? "TokenizeByLink" : "PayByLink",
      terminalIdentifier: request.terminalIdentifier,
      amount,
      currency,
      items,
      recurringProcessingModel,
      culture: request.culture ?? "is",
      themeKey: request.themeKey ?? null,
      validUntil,
      description: "",
      returnUrl: checkSessionUrl("returnUrl", request.returnUrl),
      maxSalesCount: 1,
      shopperInfo: [],
    },
    session: {
      orderReference,
      abandonUrl: request.abandonUrl == null ? null : checkSessionUrl("abandonUrl", request.abandonUrl),
      merchantShopperReference: request.merchantShopperReference ?? null,
      shopperContact: shopperContact?.trim() ?? null,
      isManualCapture: request.isManualCapture ?? false,
      captureHoursDelay: request.captureHoursDelay ?? null,
      isPreAuth: request.isPreAuth ?? false,
    },
  };
}

/**
 * A money value sent as an integer or as a string of digits (`"48900"`); any other string is a
 * wrong type (1005). `negative`: a discount line's amount may be below zero.
 */
export function wireAmount(field: string, value: WireAmount, options: { negative: boolean }): number {
  const pattern = options.negative ? /^-?\d{1,15}$/ : /^\d{1,15}$/;
  const amount = typeof value === "string" ? (pattern.test(value) ? Number(value) : Number.NaN) : value;
  if (!Number.isSafeInteger(amount)) {
    throw new AppError("WrongType", `${field} must be an integer or a string of digits, got ${describe(value)}.`).at(field);
  }
  if (amount < 0 && !options.negative) throw new AppError("MustBeGreater", `${field} must be at least 0, got ${amount}.`).at(field);
  if (Math.abs(amount) > MAX_AMOUNT) {
    throw new AppError("AmountTooHigh", `${field} is too high: at most ${MAX_AMOUNT}.`).at(field);
  }
  return amount;
}

/**
 * An item by the looser rules: quantity defaults to 1, a missing unit price is the line's amount
 * per unit, a missing amount before discount is the amount (no discount shown). A negative line
 * is a discount.
 */
function sessionItem(input: SessionItemInput, index: number): Item {
  const where = `items[${index}]`;
  const name = input.name.trim();
  if (name === "") throw new AppError("RequiredFieldMissing", `${where}.name cannot be empty.`).at(`${where}.name`);
  const amount = wireAmount(`${where}.amount`, input.amount, { negative: true });
  const quantity = input.quantity ?? 1;
  const unitPrice =
    input.unitPrice == null ? Math.round(amount / quantity) : wireAmount(`${where}.unitPrice`, input.unitPrice, { negative: true });
  const amountWithoutDiscount =
    input.amountWithoutDiscount == null
      ? amount
      : wireAmount(`${where}.amountWithoutDiscount`, input.amountWithoutDiscount, { negative: true });
  return { name, quantity, unitPrice, amountWithoutDiscount, amount };
}

/** A future time at most 24 hours ahead; no minimum (a shop may give its shopper five minutes). */
function sessionExpiry(text: string, now: Date): Date {
  const expiry = parseFutureExpiry("expiresAt", text, now);
  if (expiry.getTime() - now.getTime() > MAX_SESSION_LIFE_MS) {
    throw new AppError("TooLong", `expiresAt ${describe(text)} is more than 24 hours ahead; a session lives at most 24 hours.`).at(
      "expiresAt",
    );
  }
  return expiry;
}

/**
 * Where the shopper goes: an absolute http(s) URL. Unlike a link's returnUrl, plain http is allowed
 * for any host (test shops run on http); the host must still be one a CSP can name.
 */
function checkSessionUrl(field: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AppError("UnsupportedValue", `${field} ${describe(text)} is not an absolute URL.`).at(field);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new AppError("UnsupportedValue", `${field} ${describe(text)} must be an http:// or https:// URL.`).at(field);
  }
  if (!isPlainHost(url.hostname)) {
    throw new AppError(
      "UnsupportedValue",
      `${field} ${describe(text)} must name its host as a DNS name (letters, digits, hyphens, dots) or an IP address.`,
    ).at(field);
  }
  return url.toString();
}
