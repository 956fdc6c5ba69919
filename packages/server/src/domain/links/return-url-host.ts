// What a returnUrl's host may be. After a payment the checkout page allows its form to lead to the
// return URL's origin (Content-Security-Policy form-action), so the host is written into a header:
// a host with `;`, `*` or other characters the URL parser lets through could end the directive and
// add others. Only DNS names (letters, digits, hyphens; what the CSP host grammar allows) and IP
// literals are hosts a shop's site can have.

const DNS_NAME = /^(?=.{1,253}\.?$)[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})*\.?$/;
const IPV6_LITERAL = /^\[[0-9a-f:.]+\]$/;

/** True for a parsed URL's `hostname` that is a DNS name or an IP literal (the parser lower-cases and punycodes). */
export function isPlainHost(hostname: string): boolean {
  return DNS_NAME.test(hostname) || IPV6_LITERAL.test(hostname);
}

/**
 * The origin to allow in form-action for a stored return URL, or undefined when it cannot be
 * written into a CSP source expression (the grammar has no IPv6 literals; a link stored before
 * the host rule may have an odd host).
 */
export function formActionOrigin(returnUrl: string): string | undefined {
  try {
    const url = new URL(returnUrl);
    return DNS_NAME.test(url.hostname) ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
