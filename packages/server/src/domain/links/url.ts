// Where a link's checkout page lives. The API hands the URL out, the QR code encodes it, and the
// page's own form and language switch point back at the path.

export function linkPath(reference: string): string {
  return `/pay/${encodeURIComponent(reference)}`;
}

/** The address a merchant shares with shoppers. */
export function linkUrl(publicBaseUrl: string, reference: string): string {
  return `${publicBaseUrl}${linkPath(reference)}`;
}
