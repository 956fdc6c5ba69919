// Where a link's checkout page lives. The API hands the URL out, the QR code encodes it, and the
// page's own form and language switch point back at the path.

export function linkPath(reference: string): string {
  return `/pay/${encodeURIComponent(reference)}`;
}

/** The page of a payment link (/pay) or of a hosted-checkout session (/checkout). */
export function checkoutPath(link: { reference: string; session: unknown }): string {
  return link.session ? `/checkout/${encodeURIComponent(link.reference)}` : linkPath(link.reference);
}

/** The address a merchant shares with shoppers. */
export function linkUrl(publicBaseUrl: string, reference: string): string {
  return `${publicBaseUrl}${linkPath(reference)}`;
}
