// What every page response carries and every posted page form must pass, the checkout's and the
// portal's alike: the security headers, and the cross-site check.
import type { FastifyReply, FastifyRequest } from "fastify";

/** Headers on every /pay and /portal response; a response that set its own CSP or CORP keeps it. */
export function baseSecurityHeaders(reply: FastifyReply, publicBaseUrl: string) {
  reply.header("x-content-type-options", "nosniff");
  // The link reference is in the URL: no referrer to any other origin (merchant site, logo host…).
  reply.header("referrer-policy", "same-origin");
  reply.header("x-frame-options", "DENY");
  reply.header("cross-origin-opener-policy", "same-origin");
  reply.header("permissions-policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()");
  if (!reply.hasHeader("content-security-policy")) reply.header("content-security-policy", "default-src 'none'; frame-ancestors 'none'");
  if (!reply.hasHeader("cross-origin-resource-policy")) reply.header("cross-origin-resource-policy", "same-origin");
  if (publicBaseUrl.startsWith("https://")) reply.header("strict-transport-security", "max-age=31536000");
}

/**
 * Defence in depth next to the signed token: a browser posting from another site says so in
 * Sec-Fetch-Site and Origin. (A client without those headers, e.g. a script, is not a victim.)
 */
export function crossSite(request: FastifyRequest, publicBaseUrl: string): boolean {
  const fetchSite = request.headers["sec-fetch-site"];
  if (fetchSite === "cross-site" || fetchSite === "same-site") return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  const own = new Set<string>();
  try {
    own.add(new URL(publicBaseUrl).origin);
  } catch {
    // a bad base URL is refused by config at start
  }
  if (request.headers.host) own.add(`${request.protocol}://${request.headers.host}`);
  return !own.has(origin);
}
