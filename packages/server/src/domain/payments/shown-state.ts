// What the portal calls a payment (docs/portal.md#payments): its result, and for an approved one how
// much of its money went back. One rule for every table, page and pill that names a payment.

export type ShownState = "approved" | "partlyRefunded" | "refunded" | "declined" | "failed" | "pending" | "abandoned";

/** `refunded`: what refunds and reversals the processor confirmed gave back of `amount`. */
export function shownState(state: string, amount: number, refunded: number): ShownState | string {
  if (state !== "approved" || refunded <= 0) return state;
  return refunded >= amount ? "refunded" : "partlyRefunded";
}
