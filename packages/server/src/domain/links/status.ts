import type { LinkState, LinkStatus } from "./types.ts";

/**
 * SPEC §2.3: status is derived when read, in this order, so expiry takes effect the moment it
 * happens without any background job.
 */
export function deriveStatus(link: LinkState, now: Date): LinkStatus {
  if (link.disabled) return "Disabled";
  if (link.type === "TokenizeByLink" && link.salesCount >= 1) return "Completed";
  if (link.type === "PayByLink" && link.maxSalesCount !== null && link.salesCount >= link.maxSalesCount) return "Used";
  if (link.validUntil !== null && link.validUntil.getTime() <= now.getTime()) return "Expired";
  return "Active";
}
