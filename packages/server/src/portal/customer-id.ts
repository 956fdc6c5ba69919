// A shopper's id in the portal's addresses: the base64url of their key (an e-mail or the merchant's
// shopper reference), so any character is safe in a path and nothing needs to be stored to find them.
import { type ShopperKey, shopperKeyOf } from "../db/customers-repository.ts";

export function customerId(key: ShopperKey): string {
  return Buffer.from(`${key.kind}:${key.value}`, "utf8").toString("base64url");
}

export function customerKeyOf(id: string): ShopperKey | undefined {
  if (!/^[A-Za-z0-9_-]{1,600}$/.test(id)) return undefined;
  const text = Buffer.from(id, "base64url").toString("utf8");
  if (text.startsWith("email:") && text.length > 6) return { kind: "email", value: text.slice(6) };
  if (text.startsWith("reference:") && text.length > 10) return { kind: "reference", value: text.slice(10) };
  return undefined;
}

/** The customer page of a shopper known by `email` or `reference`; null when neither is known. */
export function customerHref(who: { email: string | null; reference: string | null }): string | null {
  const key = shopperKeyOf(who.email, who.reference);
  return key && `/portal/customers/${customerId(key)}`;
}
