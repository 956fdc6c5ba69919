/** @jsxRuntime automatic @jsxImportSource preact */
// How every checkout response leaves: whole HTML pages under their own Content-Security-Policy,
// the security headers every /pay response carries, the 404 page, and the cross-site check of
// posted forms.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { VNode } from "preact";
import { formActionOrigin } from "../domain/links/return-url-host.ts";
import { sendHtmlPage } from "../http/html-page.ts";
import type { Lang } from "./i18n.ts";
import { acceptLanguage, requestedLang } from "./language.ts";
import { DEFAULT_THEME, type PageTheme } from "./theme.ts";
import { renderDocument } from "./views/layout.tsx";
import { MessagePage, StatusPage } from "./views/status-page.tsx";

/**
 * Sends a whole HTML page with its Content-Security-Policy: no inline script at all, the stylesheet
 * file from this origin and inline styles only under this response's nonce, forms may post only
 * here (and, after a payment, follow the redirect to the merchant's return URL — Chromium applies
 * form-action to that redirect).
 */
export function sendPage(
  reply: FastifyReply,
  status: number,
  build: (nonce: string) => VNode,
  options: { returnUrl?: string | null } = {},
) {
  return sendRenderedPage(reply, status, (nonce) => renderDocument(build(nonce)), options);
}

/** sendPage for a caller that has the document as text already (a kept first view, D-261). */
export function sendRenderedPage(
  reply: FastifyReply,
  status: number,
  render: (nonce: string) => string,
  options: { returnUrl?: string | null } = {},
) {
  const formTargets = ["'self'"];
  const returnOrigin = options.returnUrl ? formActionOrigin(options.returnUrl) : undefined;
  if (returnOrigin) formTargets.push(returnOrigin);
  return sendHtmlPage(reply, status, render, { formTargets, stylesheetSelf: true });
}

/** A page with a title and one paragraph: errors, waits, and other answers without a form. */
export function sendMessagePage(reply: FastifyReply, status: number, lang: Lang, theme: PageTheme, title: string, text: string) {
  return sendPage(reply, status, (nonce) => <MessagePage lang={lang} nonce={nonce} theme={theme} title={title} text={text} />);
}

/**
 * The checkout's 404 page, also for URLs the router rejects before any route runs (a reference
 * over Fastify's parameter length, broken percent-encoding): no such link exists there either.
 */
export function sendCheckoutNotFound(request: FastifyRequest, reply: FastifyReply, postedLang?: Lang) {
  const lang = postedLang ?? requestedLang(request) ?? acceptLanguage(request);
  return sendPage(reply, 404, (nonce) => <StatusPage lang={lang} nonce={nonce} theme={paylinkTheme()} status="NotFound" />);
}

/** Pages that belong to no merchant (not found, errors) wear Paylink's own name. */
export function paylinkTheme(): PageTheme {
  return { ...DEFAULT_THEME, name: "Paylink" };
}

/** Headers on every /pay response; a response that set its own CSP or CORP keeps it. */
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
