// A digest of a link's cart, so the checkout can tell that the items a shopper was shown are the
// items still being sold: the form token signs it next to the total, and the reservation checks it
// (docs/decisions.md, docs/decisions.md#sale-cap-reservation). The same items give the same digest whichever way they were read
// (the API's normalised terms or the stored JSON).
import { createHash } from "node:crypto";

/** An item as stored or as read through the API; fields are read by name. */
export interface CartItem {
  name: unknown;
  quantity: unknown;
  unitPrice: unknown;
  amountWithoutDiscount: unknown;
  amount: unknown;
}

/** 22 base64url characters (132 bits) of SHA-256 over the items, in order. */
export function cartDigest(items: readonly CartItem[]): string {
  const canonical = items.map((item) => [
    String(item.name),
    Number(item.quantity),
    Number(item.unitPrice),
    Number(item.amountWithoutDiscount),
    Number(item.amount),
  ]);
  return createHash("sha256").update(JSON.stringify(canonical), "utf8").digest("base64url").slice(0, 22);
}
