// What a processor's answer to a checkout payment becomes (docs/checkout.md#sale-cap-and-payments-in-flight).
// Pure: the use case reads the submission and its link, asks here, and writes what this says.
import { isOpenForSale, linkStatus, type StatusSource } from "../links/status.ts";

/** The processor's answer, as the checkout records it. */
export type ProcessorOutcome =
  | {
      kind: "approved";
      payfacReference: string;
      authCode: string;
      token: string | null;
      cardBrand: string;
      cardUsage: string;
      card?: ReportedCardNumber;
    }
  | { kind: "declined"; payfacReference: string; reason: string; cardBrand: string; cardUsage: string; card?: ReportedCardNumber }
  /** The processor could not be reached or did not answer in time: no outcome known. */
  | { kind: "failed"; reason: string };

/** The card as a processor's own page reports it with the outcome (Paylink's form knew it before). */
export interface ReportedCardNumber {
  masked: string | null;
  last4: string | null;
  expiry: string | null;
}

/** What was recorded: `voided` is an approval that could not become a sale; it is cancelled at the processor. */
export type RecordedResult = "approved" | "declined" | "failed" | "voided";

/**
 * Why an approval became no sale, stored as the submission's reason: the merchant lowered the cap,
 * disabled the link, or the link expired while the card was being charged; or the attempt had
 * already been reversed and abandoned by the reconciler (the processor confirmed nothing stands).
 */
export type VoidReason = "Sold out" | "Link disabled" | "Link expired" | "Reversed";

export interface PaymentDecision {
  recorded: RecordedResult;
  voidReason: VoidReason | null;
  /** The attempt still holds a sale slot, to be released (or turned into the sale). */
  holdsSlot: boolean;
}

/**
 * The result of an unfinished attempt. A pending attempt holds a slot: an approval becomes the
 * sale while the link is still open, as at the reservation; a link sold out, disabled or expired
 * meanwhile voids it. An abandoned attempt was reversed at the processor and released its slot:
 * whatever an approval says now, no charge stands behind it.
 */
export function decidePayment(outcome: ProcessorOutcome, attempt: "pending" | "abandoned", link: StatusSource, now: Date): PaymentDecision {
  const holdsSlot = attempt === "pending";
  if (outcome.kind !== "approved") return { recorded: outcome.kind, voidReason: null, holdsSlot };
  if (!holdsSlot) return { recorded: "voided", voidReason: "Reversed", holdsSlot };
  if (isOpenForSale(link, now)) return { recorded: "approved", voidReason: null, holdsSlot };
  const status = linkStatus(link, now);
  const voidReason = status === "Disabled" ? "Link disabled" : status === "Expired" ? "Link expired" : "Sold out";
  return { recorded: "voided", voidReason, holdsSlot };
}
