// Disable a payment link at once (docs/api.md#disable): idempotent; its submissions and saved
// cards are kept.
import { disableLink as markLinkDisabled } from "../db/links-repository.ts";
import type { ServiceDeps } from "./deps.ts";

/** False when the merchant has no such link. */
export async function disableLink(deps: ServiceDeps, merchantId: string, paymentLinkReference: string): Promise<boolean> {
  if (!(await markLinkDisabled(deps.db, merchantId, paymentLinkReference))) return false;
  deps.log.info({ paymentLinkReference }, "payment link disabled");
  return true;
}
