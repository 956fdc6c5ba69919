// The one way a server-rendered page leaves Paylink, for the checkout and the portal alike: a whole
// HTML document under its own Content-Security-Policy (no inline script, inline styles only under
// this response's nonce, stylesheet files only from this origin when the caller links one, forms
// posting only where the caller allows), never cached.
import type { FastifyReply } from "fastify";
import type { VNode } from "preact";
import { render } from "preact-render-to-string";
import { randomToken } from "../ids.ts";

export interface PagePolicy {
  /** Where the page's forms may post (and, for the checkout, the return URL a payment redirects to). */
  formTargets: string[];
  /** The page's script may fetch from this origin (the portal's progressive enhancements). */
  connectSelf?: boolean;
  /** The page links a stylesheet file from this origin (the checkout's). */
  stylesheetSelf?: boolean;
}

export function sendHtmlPage(reply: FastifyReply, status: number, render: (nonce: string) => string, policy: PagePolicy) {
  const nonce = randomToken(16, "base64");
  const html = render(nonce);
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    policy.stylesheetSelf ? `style-src 'self' 'nonce-${nonce}'` : `style-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    ...(policy.connectSelf ? ["connect-src 'self'"] : []),
    `form-action ${policy.formTargets.join(" ")}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
  return reply
    .code(status)
    .header("content-type", "text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header("content-security-policy", csp)
    .send(html);
}

/** A page's element tree as the text of a whole document. */
export function renderDocument(page: VNode): string {
  return `<!doctype html>${render(page)}`;
}
