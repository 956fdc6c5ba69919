// What the portal calls a payment (docs/portal.md#payments): its result, for an approved one how
// much of its money went back, and for one captured later where its authorisation stands. One rule
// for every table, page and pill that names a payment.
import type { AuthorisationState } from "./capture.ts";

export type ShownState =
  | "approved"
  | "authorisedNotCaptured"
  | "partlyCaptured"
  | "cancelled"
  | "lapsed"
  | "partlyRefunded"
  | "refunded"
  | "disputed"
  | "declined"
  | "failed"
  | "pending"
  | "abandoned";

/** A manual-capture payment's authorisation, when the caller knows it. */
export interface ShownAuthorisation {
  state: AuthorisationState;
  captured: number;
}

/**
 * `refunded`: what refunds and reversals the processor confirmed gave back of `amount` (a reversal
 * of an authorisation counts what it released too). `disputed`: a processor reported a chargeback or dispute on it.
 */
export function shownState(
  state: string,
  amount: number,
  refunded: number,
  authorisation?: ShownAuthorisation,
  disputed = false,
): ShownState | string {
  if (state !== "approved") return state;
  // A chargeback wants the merchant's attention before anything else about the payment.
  if (disputed) return "disputed";
  if (authorisation && authorisation.captured === 0) {
    if (authorisation.state === "open") return "authorisedNotCaptured";
    if (authorisation.state === "released") return "cancelled";
    if (authorisation.state === "lapsed") return "lapsed";
  }
  if (refunded > 0) return refunded >= amount ? "refunded" : "partlyRefunded";
  if (authorisation?.state === "open") return "partlyCaptured";
  return "approved";
}
