// Where a paid shopper goes next: the link's returnUrl with the checkout reference.

/**
 * The merchant's returnUrl with `checkoutReference=<id>` appended as text: the rest of the query
 * stays byte for byte as the merchant wrote it (URLSearchParams would re-encode it and break
 * signed or exact-match return URLs). A #fragment stays at the end.
 */
export function withCheckoutReference(returnUrl: string, checkoutReference: string): string {
  const hashAt = returnUrl.indexOf("#");
  const base = hashAt === -1 ? returnUrl : returnUrl.slice(0, hashAt);
  const fragment = hashAt === -1 ? "" : returnUrl.slice(hashAt);
  const separator = !base.includes("?") ? "?" : base.endsWith("?") || base.endsWith("&") ? "" : "&";
  return `${base}${separator}checkoutReference=${encodeURIComponent(checkoutReference)}${fragment}`;
}
