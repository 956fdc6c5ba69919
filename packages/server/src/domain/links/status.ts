import type { LinkState, LinkStatus, LinkTerms } from "./types.ts";

/**
 * A link's status is derived when read, in this order, so expiry takes effect the moment it
 * happens without any background job.
 */
export function deriveStatus(link: LinkState, now: Date): LinkStatus {
  if (link.disabled) return "Disabled";
  if (link.type === "TokenizeByLink" && link.salesCount >= 1) return "Completed";
  if (link.type === "PayByLink" && link.maxSalesCount !== null && link.salesCount >= link.maxSalesCount) return "Used";
  if (link.validUntil !== null && link.validUntil.getTime() <= now.getTime()) return "Expired";
  return "Active";
}

/** What every stored link (the API's record, the checkout's, one being updated) carries. */
export interface StatusSource {
  terms: Pick<LinkTerms, "type" | "maxSalesCount" | "validUntil">;
  disabled: boolean;
  salesCount: number;
}

/** The status of a stored link at `now`. */
export function linkStatus(link: StatusSource, now: Date): LinkStatus {
  const { type, maxSalesCount, validUntil } = link.terms;
  return deriveStatus({ type, maxSalesCount, validUntil, disabled: link.disabled, salesCount: link.salesCount }, now);
}

/** Whether the link takes a payment at `now`: only an Active link does. */
export function isOpenForSale(link: StatusSource, now: Date): boolean {
  return linkStatus(link, now) === "Active";
}
