/** @jsxRuntime automatic @jsxImportSource preact */
// How every checkout response leaves: whole HTML pages under their own Content-Security-Policy,
// the message pages and the 404 page.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { VNode } from "preact";
import { formActionOrigin } from "../domain/links/return-url-host.ts";
import { renderDocument, sendHtmlPage } from "../web/html-page.ts";
import { acceptLanguage, type Lang } from "../web/i18n.ts";
import { DEFAULT_THEME, type PageTheme } from "../web/theme.ts";
import { requestedLang } from "./i18n.ts";
import { MessagePage, StatusPage } from "./views/status-page.tsx";

/**
 * Sends a whole HTML page with its Content-Security-Policy: no inline script at all, the stylesheet
 * file from this origin and inline styles only under this response's nonce, forms may post only
 * here (and, after a payment, follow the redirect to the merchant's return URL — Chromium applies
 * form-action to that redirect).
 */
export function sendPage(reply: FastifyReply, status: number, build: (nonce: string) => VNode, options: PageTargets = {}) {
  return sendRenderedPage(reply, status, (nonce) => renderDocument(build(nonce)), options);
}

/** Where the page's form may lead besides Paylink: the session's return, the processor's page. */
export interface PageTargets {
  returnUrl?: string | null;
  processorOrigin?: string | null;
}

/** sendPage for a caller that has the document as text already (a kept first view, docs/decisions.md#checkout-pages). */
export function sendRenderedPage(reply: FastifyReply, status: number, render: (nonce: string) => string, options: PageTargets = {}) {
  const formTargets = ["'self'"];
  const returnOrigin = options.returnUrl ? formActionOrigin(options.returnUrl) : undefined;
  if (returnOrigin) formTargets.push(returnOrigin);
  // A real processor's page: the form's answer is a 303 there.
  if (options.processorOrigin) formTargets.push(options.processorOrigin);
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
