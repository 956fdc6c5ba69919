// The addresses of a saved-card charge's 3-D Secure detour (docs/processors.md#after-the-sale): the
// shopper goes to Paylink's address, which forwards them to the processor's page, and comes back to
// the merchant's returnUrl or to Paylink's page that says it is done (processors/authenticate-route.ts).

/** Paylink's address that forwards a saved-card charge's shopper to the processor's 3-D Secure page. */
export function shopperAuthenticationPath(checkoutReference: string): string {
  return `/processors/authenticate/${encodeURIComponent(checkoutReference)}`;
}

/**
 * Where the processor sends the shopper after its 3-D Secure page: the merchant's returnUrl, or
 * without one Paylink's page that says it is done (a processor such as Adyen requires one). The
 * same for the charge and for its replay, which must be the same request.
 */
export function afterAuthenticationUrl(publicBaseUrl: string, charge: { checkoutReference: string; returnUrl: string | null }): string {
  return charge.returnUrl ?? `${publicBaseUrl}${shopperAuthenticationPath(charge.checkoutReference)}/done`;
}
