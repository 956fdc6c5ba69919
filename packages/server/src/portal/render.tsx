/** @jsxRuntime automatic @jsxImportSource preact */
// How every portal response leaves: a whole HTML page (web/html-page.ts: its own
// Content-Security-Policy, forms post only here, never cached);
// the page frame (language, switch link, the signed-in viewer); and the message pages (404, 403…).
import type { FastifyReply, FastifyRequest } from "fastify";
import type { VNode } from "preact";
import { renderDocument, sendHtmlPage } from "../web/html-page.ts";
import { otherLang } from "../web/i18n.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { Layout, type PageFrame } from "./views/layout.tsx";

export function sendPortalPage(reply: FastifyReply, status: number, build: (nonce: string) => VNode) {
  return sendHtmlPage(reply, status, (nonce) => renderDocument(build(nonce)), { formTargets: ["'self'"], connectSelf: true });
}

/** The frame of this request's page, for a given nonce. */
export function frameOf(request: FastifyRequest, nonce: string, path?: string): PageFrame {
  const { lang, session } = request.portal;
  const url = new URL(path ?? request.url, "http://portal.invalid");
  url.searchParams.set("lang", otherLang(lang));
  return {
    lang,
    nonce,
    switchHref: `${url.pathname}?${url.searchParams.toString()}`,
    // Between the password and the code, nobody is signed in yet: no menu, no name.
    viewer:
      session && !session.secondFactorPending
        ? { email: session.email, merchantName: session.merchantName, csrfToken: session.csrfToken, role: session.role }
        : undefined,
  };
}

export function sendMessagePage(request: FastifyRequest, reply: FastifyReply, status: number, title: string, text: string) {
  const m = PORTAL_MESSAGES[request.portal.lang];
  // The language switch of a message page leads to the portal's start, not back to the address
  // asked for: a 404 page repeats nothing of the URL, and a POST address is no page to switch to.
  return sendPortalPage(reply, status, (nonce) => (
    <Layout {...frameOf(request, nonce, "/portal")} title={title}>
      <div class="card">
        <h1>{title}</h1>
        <p>{text}</p>
        {request.portal.session ? <a href="/portal/overview">{m.errors.back}</a> : null}
      </div>
    </Layout>
  ));
}

/** Another merchant's object is this same page: nothing tells it apart from one that does not exist. */
export function sendPortalNotFound(request: FastifyRequest, reply: FastifyReply) {
  const m = PORTAL_MESSAGES[request.portal.lang].errors;
  return sendMessagePage(request, reply, 404, m.notFoundTitle, m.notFoundText);
}
