// Rules every admin operation shares: the merchant in the path must exist, names are trimmed, and
// webhook URLs pass the outbound guard's save-time check.
import type { Database } from "../db/connect.ts";
import { merchantExists } from "../db/merchants-repository.ts";
import { AppError } from "../domain/errors.ts";
import { checkWebhookUrl } from "../net/outbound-guard.ts";

/** NotFound (404) for a merchant id that does not exist. */
export async function requireMerchant(db: Database, merchantId: string): Promise<void> {
  if (!(await merchantExists(db, merchantId))) throw new AppError("NotFound", `No merchant with id ${JSON.stringify(merchantId)}.`);
}

/**
 * A required name without its surrounding white space; RequiredFieldMissing when nothing is left,
 * as for an empty string (the schema's minLength sees "   " as three characters).
 */
export function requiredName(value: string, field = "name"): string {
  const trimmed = value.trim();
  if (trimmed === "") throw new AppError("RequiredFieldMissing", `${field} cannot be empty or only spaces.`);
  return trimmed;
}

/** An optional name without its surrounding white space; undefined (left out) when nothing is left. */
export function optionalName(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === "" ? undefined : trimmed;
}

/** A webhook URL as it will be stored (trimmed), or UnsupportedValue naming what is wrong with it. */
export function checkedWebhookUrl(url: string, allowPrivate: boolean): string {
  const trimmed = url.trim();
  const problem = checkWebhookUrl(trimmed, allowPrivate);
  if (problem) throw new AppError("UnsupportedValue", problem);
  return trimmed;
}

export const webhookNotFound = (webhookId: string) =>
  new AppError("NotFound", `No webhook endpoint with id ${JSON.stringify(webhookId)} for this merchant.`);
