// The rules of an authorisation that is captured later (docs/api.md#capture-and-adjust): a session
// paid with isManualCapture (captured by POST /modification/capture) or with captureHoursDelay
// (captured by the processor itself at a set time). What is captured, lapsed or released is read
// from the payment's balance and the clock, so no job has to run for time to pass.
import { AppError } from "../errors.ts";
import { moneyText } from "../money/money-text.ts";

/** The sandbox lets an uncaptured manual authorisation lapse this long after it was made. */
export const AUTHORISATION_LIFE_MS = 7 * 24 * 60 * 60 * 1000;

/** How a payment is captured, from its session; null for a payment captured with its authorisation. */
export interface CaptureTerms {
  manual: boolean;
  /** The session's isPreAuth: the authorisation may be adjusted before any capture. */
  preAuth: boolean;
  authorisedAt: Date;
  /** captureHoursDelay: when the processor captures it all by itself (never with manual capture). */
  autoCaptureAt: Date | null;
}

/** A payment's balance row as the rules read it (under its lock when a change follows). */
export interface AuthorisationBalance {
  payfacReference: string;
  currency: string;
  /** The authorised amount (an adjustment changes it). */
  amount: number;
  /** Null: captured in full with the authorisation. */
  capturedAmount: number | null;
  /** Held by captures still being processed. */
  captureReservedAmount: number;
  refundedAmount: number;
  /** Held by refunds still being processed. */
  reservedAmount: number;
  authorisedAt: Date | null;
  autoCaptureAt: Date | null;
  releasedAt: Date | null;
  preAuth: boolean;
  /** An adjustment is being processed. */
  adjusting: boolean;
}

export type AuthorisationState = "captured" | "open" | "released" | "lapsed";

/** What is captured at `now`: a delayed capture takes everything once its time has come. */
export function capturedAmount(balance: AuthorisationBalance, now: Date): number {
  if (balance.capturedAmount === null) return balance.amount;
  if (balance.autoCaptureAt !== null && balance.releasedAt === null && balance.autoCaptureAt <= now) return balance.amount;
  return balance.capturedAmount;
}

export function authorisationState(balance: AuthorisationBalance, now: Date): AuthorisationState {
  if (capturedAmount(balance, now) >= balance.amount) return "captured";
  if (balance.releasedAt !== null) return "released";
  const manual = balance.capturedAmount !== null && balance.autoCaptureAt === null;
  if (manual && balance.authorisedAt !== null && now.getTime() >= balance.authorisedAt.getTime() + AUTHORISATION_LIFE_MS) return "lapsed";
  return "open";
}

function isManual(balance: AuthorisationBalance): boolean {
  return balance.capturedAmount !== null && balance.autoCaptureAt === null;
}

const STATE_TEXT: Record<Exclude<AuthorisationState, "open">, string> = {
  captured: "is already fully captured",
  released: "was released by a reversal",
  lapsed: "lapsed (an authorisation not captured within 7 days is released)",
};

/** A capture of `amount` fits (409 3003 when nothing can be captured, 400 2019 when it is more than is left). */
export function checkCapture(balance: AuthorisationBalance, amount: number, now: Date): void {
  const reference = balance.payfacReference;
  if (!isManual(balance)) throw new AppError("StateConflict", `Payment ${reference} is not a manual-capture authorisation.`);
  const state = authorisationState(balance, now);
  if (state !== "open") throw new AppError("StateConflict", `Payment ${reference} ${STATE_TEXT[state]}; nothing can be captured.`);
  if (balance.adjusting) throw new AppError("StateConflict", `Payment ${reference} is being adjusted; capture once that is done.`);
  const left = balance.amount - (balance.capturedAmount ?? 0) - balance.captureReservedAmount;
  if (amount > left) {
    const money = (value: number) => moneyText(value, balance.currency);
    const inFlight =
      balance.captureReservedAmount > 0 ? ` (${money(balance.captureReservedAmount)} more is held by captures still being processed)` : "";
    throw new AppError(
      "AmountTooHigh",
      `amount ${money(amount)} is more than what is left to capture of payment ${reference}: ${money(Math.max(0, left))}${inFlight}.`,
    ).at("amount");
  }
}

/** What refunds may give back in all: the captured money only (409 3003 while nothing is captured). */
export function refundableTotal(balance: AuthorisationBalance, now: Date): number {
  const captured = capturedAmount(balance, now);
  if (captured === 0) {
    const state = authorisationState(balance, now);
    throw new AppError(
      "StateConflict",
      state === "open"
        ? `Payment ${balance.payfacReference} is authorised but not captured; capture it first, or reverse it to release the authorisation.`
        : `Payment ${balance.payfacReference} ${STATE_TEXT[state]} and nothing of it was captured; there is nothing to refund.`,
    );
  }
  return captured;
}

/**
 * What a reversal gives back in all, and whether it releases the uncaptured rest: an open
 * authorisation is refunded where captured and released where not; otherwise only the captured
 * money can come back. Refused while a capture or an adjustment is being processed (409 3003).
 */
export function reversalScope(balance: AuthorisationBalance, now: Date): { total: number; release: boolean } {
  if (balance.captureReservedAmount > 0 || balance.adjusting) {
    throw new AppError(
      "StateConflict",
      `Payment ${balance.payfacReference} has a capture or an adjustment still being processed; reverse it once that is done.`,
    );
  }
  const state = authorisationState(balance, now);
  if (state === "open") return { total: balance.amount, release: true };
  const captured = capturedAmount(balance, now);
  if (captured === 0) {
    throw new AppError(
      "StateConflict",
      `Payment ${balance.payfacReference} ${STATE_TEXT[state]} and nothing of it was captured; there is nothing to reverse.`,
    );
  }
  return { total: captured, release: false };
}

/** An adjustment fits: an open pre-authorisation, before any capture or refund (409 3003). */
export function checkAdjust(balance: AuthorisationBalance, now: Date): void {
  const reference = balance.payfacReference;
  if (!isManual(balance) || !balance.preAuth) {
    throw new AppError("StateConflict", `Payment ${reference} is not a pre-authorisation (a session with isPreAuth and isManualCapture).`);
  }
  const state = authorisationState(balance, now);
  if (state !== "open") throw new AppError("StateConflict", `Payment ${reference} ${STATE_TEXT[state]}; it cannot be adjusted.`);
  if ((balance.capturedAmount ?? 0) > 0 || balance.captureReservedAmount > 0 || balance.refundedAmount + balance.reservedAmount > 0) {
    throw new AppError(
      "StateConflict",
      `Payment ${reference} has been captured or refunded in part; only an uncaptured authorisation can be adjusted.`,
    );
  }
  if (balance.adjusting) throw new AppError("StateConflict", `Payment ${reference} is already being adjusted.`);
}

/** The balance of a payment captured later that no capture, refund or reversal has touched yet. */
export function untouchedBalance(payment: {
  payfacReference: string;
  currency: string;
  amount: number;
  capture: CaptureTerms;
}): AuthorisationBalance {
  return {
    payfacReference: payment.payfacReference,
    currency: payment.currency,
    amount: payment.amount,
    capturedAmount: 0,
    captureReservedAmount: 0,
    refundedAmount: 0,
    reservedAmount: 0,
    authorisedAt: payment.capture.authorisedAt,
    autoCaptureAt: payment.capture.autoCaptureAt,
    releasedAt: null,
    preAuth: payment.capture.preAuth,
    adjusting: false,
  };
}
