/** @jsxRuntime automatic @jsxImportSource preact */
// /pay: the hosted checkout (SPEC §3). Server-rendered HTML that works without JavaScript.
//   GET  /pay/{reference}          the page (counts one visit, whatever the status)
//   POST /pay/{reference}          the form: validate → reserve → processor → record → result page
//   GET  /pay/{reference}/qr.svg   a QR code of the link URL
//   GET  /pay/assets/checkout.js   the optional form helper
// This plugin has its own HTML error and not-found pages, form-body parser and security headers;
// none of them leak into the JSON API.
import { randomBytes } from "node:crypto";
import formbody from "@fastify/formbody";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { VNode } from "preact";
import QRCode from "qrcode";
import { type CheckoutLink, countVisit, loadCheckoutLink, sharedSecret } from "../db/checkout-repository.ts";
import type { Database } from "../db/connect.ts";
import { findThemeLogo } from "../db/merchants-repository.ts";
import { deriveStatus } from "../domain/links/status.ts";
import type { LinkStatus } from "../domain/links/types.ts";
import { checkoutBrake, NO_RATE_LIMITS, type RateLimits } from "../http/rate-limit.ts";
import { errorName } from "../payments/error-name.ts";
import type { PaymentProcessor } from "../payments/processor.ts";
import { CHECKOUT_JS } from "./assets.ts";
import { type FieldError, formText, type RedisplayValues, readCheckoutForm } from "./form.ts";
import { issueFormToken, newAttemptKey, type ShownPrice, verifyFormToken } from "./form-token.ts";
import { isLang, type Lang, MESSAGES } from "./i18n.ts";
import { type PayDeps, payWithLink } from "./pay.ts";
import { withCheckoutReference } from "./return-url.ts";
import { DEFAULT_THEME, type PageTheme, pageTheme } from "./theme.ts";
import { type CheckoutAlert, CheckoutPage } from "./views/checkout-page.tsx";
import { renderDocument } from "./views/layout.tsx";
import { ReceiptPage } from "./views/receipt-page.tsx";
import { MessagePage, StatusPage } from "./views/status-page.tsx";

export interface CheckoutDeps {
  db: Database;
  /** Read on every request: a test server learns its port after the app is built. */
  readonly publicBaseUrl: string;
  now: () => Date;
  processor: PaymentProcessor;
  processorTimeoutMs?: number;
  duplicateWaitMs?: number;
  rateLimits?: RateLimits;
}

const LANG_COOKIE = "paylink_lang";
const REFERENCE_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const FORM_BODY_LIMIT = 64 * 1024;

export async function checkoutRoutes(app: FastifyInstance, deps: CheckoutDeps): Promise<void> {
  // Form bodies are parsed only here: the JSON API keeps answering 415 to them.
  await app.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
  const formKey = Buffer.from(await sharedSecret(deps.db, "checkout-form-token"), "hex");
  const brake = checkoutBrake(app, deps.rateLimits ?? NO_RATE_LIMITS);
  const payDeps = (request: FastifyRequest): PayDeps => ({
    db: deps.db,
    processor: deps.processor,
    now: deps.now,
    log: request.log,
    processorTimeoutMs: deps.processorTimeoutMs ?? 60_000,
    duplicateWaitMs: deps.duplicateWaitMs ?? 20_000,
  });

  app.addHook("onSend", async (_request, reply, payload) => {
    baseSecurityHeaders(reply, deps.publicBaseUrl);
    return payload;
  });

  app.setNotFoundHandler((request, reply) => sendCheckoutNotFound(request, reply));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const lang = requestedLang(request) ?? acceptLanguage(request);
    const m = MESSAGES[lang];
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = status === 413 || status === 415 ? status : 400;
      return sendPage(reply, code, (nonce) => (
        <MessagePage lang={lang} nonce={nonce} theme={paylinkTheme()} title={m.badRequestTitle} text={m.badRequestText} />
      ));
    }
    // Only the error's name and a digit-masked message: never the request body.
    request.log.error({ error: errorName(error), frames: error.stack?.split("\n").slice(1, 12).join("\n") }, "checkout request failed");
    return sendPage(reply, 500, (nonce) => (
      <MessagePage lang={lang} nonce={nonce} theme={paylinkTheme()} title={m.errorPageTitle} text={m.errorPageText} />
    ));
  });

  app.get("/assets/checkout.js", { schema: { hide: true } }, async (_request, reply) => {
    return reply
      .header("content-type", "text/javascript; charset=utf-8")
      .header("cache-control", "public, max-age=31536000, immutable")
      .send(CHECKOUT_JS);
  });

  // Theme logos: Paylink's stored copy (downloaded or uploaded when the theme was saved).
  app.get("/assets/logos/:themeKey", { schema: { hide: true } }, async (request, reply) => {
    const { themeKey } = request.params as { themeKey: string };
    const logo = /^[A-Za-z0-9_-]{1,64}$/.test(themeKey) ? await findThemeLogo(deps.db, themeKey) : undefined;
    if (!logo)
      return reply.code(404).header("content-type", "text/plain; charset=utf-8").header("cache-control", "no-store").send("Not found");
    const versioned = (request.query as { v?: unknown }).v === logo.version;
    return (
      reply
        .header("content-type", logo.contentType)
        // A versioned URL never changes content; an unversioned one may (a new logo, same theme).
        .header("cache-control", versioned ? "public, max-age=31536000, immutable" : "public, max-age=300")
        .header("etag", `"${logo.version}"`)
        .header("content-security-policy", "default-src 'none'; frame-ancestors 'none'; sandbox")
        .send(logo.bytes)
    );
  });

  app.get("/:reference", { schema: { hide: true } }, async (request, reply) => {
    const { reference } = request.params as { reference: string };
    // A HEAD (link previews, uptime checks) is not a shopper's visit.
    const known = REFERENCE_PATTERN.test(reference) && (request.method === "HEAD" || (await countVisit(deps.db, reference)));
    const link = known ? await loadCheckoutLink(deps.db, reference) : undefined;
    if (!link) return sendCheckoutNotFound(request, reply);
    const lang = requestedLang(request) ?? link.terms.culture;
    const query = request.query as Record<string, unknown>;
    if (isLang(query.lang)) rememberLang(reply, query.lang, deps.publicBaseUrl);
    const theme = pageTheme(link);
    const status = statusOf(link, deps.now());
    if (status !== "Active") return sendStatusPage(reply, link, lang, theme, status);
    const formToken = issueFormToken(formKey, reference, deps.now(), priceOf(link));
    return sendCheckoutPage(reply, 200, link, { lang, theme, formToken, values: {}, errors: [] });
  });

  app.post("/:reference", { schema: { hide: true }, bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
    const { reference } = request.params as { reference: string };
    const body = formBody(request);
    const link = REFERENCE_PATTERN.test(reference) ? await loadCheckoutLink(deps.db, reference) : undefined;
    const postedLang = formText(body ?? {}, "lang");
    if (!link) return sendCheckoutNotFound(request, reply, isLang(postedLang) ? postedLang : undefined);
    const lang = isLang(postedLang) ? postedLang : (requestedLang(request) ?? link.terms.culture);
    const theme = pageTheme(link);
    const now = deps.now();

    // A link that cannot take a payment records nothing, whatever was posted.
    const status = statusOf(link, now);
    if (status !== "Active") return sendStatusPage(reply, link, lang, theme, status);

    // Card testing: too many declines and rejected forms from one address on this link.
    const waitSeconds = await brake.blockedFor(request);
    if (waitSeconds > 0) {
      const m = MESSAGES[lang];
      reply.header("retry-after", String(waitSeconds));
      return sendPage(reply, 429, (nonce) => (
        <MessagePage lang={lang} nonce={nonce} theme={theme} title={m.tooManyTitle} text={m.tooManyText(Math.ceil(waitSeconds / 60))} />
      ));
    }

    if (body === undefined) {
      const m = MESSAGES[lang];
      return sendPage(reply, 415, (nonce) => (
        <MessagePage lang={lang} nonce={nonce} theme={theme} title={m.badRequestTitle} text={m.badRequestText} />
      ));
    }

    const form = readCheckoutForm(body, link.terms.shopperInfo, now);
    const token = verifyFormToken(formKey, reference, formText(body, "csrfToken"), now);
    if (!token || crossSite(request, deps.publicBaseUrl)) {
      // Nothing is recorded. The page comes back with a fresh token and the shopper's details.
      return sendCheckoutPage(reply, 403, link, {
        lang,
        theme,
        formToken: issueFormToken(formKey, reference, now, priceOf(link)),
        values: form.redisplay,
        errors: [],
        alert: { kind: "expired-form" },
      });
    }
    if (!samePrice(token, link)) {
      // The merchant changed the price while the page was open: show the new one, charge nothing.
      return sendPriceChanged(reply, link, { lang, theme, values: form.redisplay }, now);
    }
    if (!form.ok) {
      await brake.recordFailure(request);
      // Same token: the attempt has not been used yet.
      return sendCheckoutPage(reply, 422, link, {
        lang,
        theme,
        formToken: formText(body, "csrfToken"),
        values: form.redisplay,
        errors: form.errors,
      });
    }

    const outcome = await payWithLink(payDeps(request), link, form.value, {
      attemptKey: token.attemptKey,
      shownPrice: { amount: token.amount, currency: token.currency },
    });
    const m = MESSAGES[lang];
    const freshToken = () => issueFormToken(formKey, reference, deps.now(), priceOf(link), newAttemptKey());
    switch (outcome.kind) {
      case "approved": {
        if (link.terms.returnUrl) {
          const target = withCheckoutReference(link.terms.returnUrl, outcome.submission.checkoutReference);
          return reply.code(303).header("location", target).header("cache-control", "no-store").send();
        }
        const tokenize = link.terms.type === "TokenizeByLink";
        return sendPage(reply, 200, (nonce) => (
          <ReceiptPage lang={lang} nonce={nonce} theme={theme} tokenize={tokenize} submission={outcome.submission} />
        ));
      }
      case "declined":
        await brake.recordFailure(request);
        return sendCheckoutPage(reply, 402, link, {
          lang,
          theme,
          formToken: freshToken(),
          values: form.redisplay,
          errors: [],
          alert: { kind: "declined", reason: outcome.reason },
        });
      case "failed":
        return sendCheckoutPage(reply, 502, link, {
          lang,
          theme,
          formToken: freshToken(),
          values: form.redisplay,
          errors: [],
          alert: { kind: "failed" },
        });
      case "voided":
        return sendPage(reply, 410, (nonce) => (
          <StatusPage lang={lang} nonce={nonce} theme={theme} status="Used" extra={m.soldOutWhilePaying} />
        ));
      case "pending":
        return sendPage(reply, 202, (nonce) => (
          <MessagePage lang={lang} nonce={nonce} theme={theme} title={m.pendingTitle} text={m.pendingText} />
        ));
      case "unconfirmed":
        return sendPage(reply, 202, (nonce) => (
          <MessagePage lang={lang} nonce={nonce} theme={theme} title={m.unconfirmedTitle} text={m.unconfirmedText} />
        ));
      case "unavailable": {
        // Why: re-read the link. Still Active means every remaining slot is held by a payment in flight.
        const current = (await loadCheckoutLink(deps.db, reference)) ?? link;
        const now2 = deps.now();
        const currentStatus = statusOf(current, now2);
        if (currentStatus !== "Active") return sendStatusPage(reply, current, lang, theme, currentStatus);
        if (!samePrice(token, current)) {
          return sendPriceChanged(reply, current, { lang, theme, values: form.redisplay }, now2);
        }
        return sendPage(reply, 410, (nonce) => (
          <StatusPage lang={lang} nonce={nonce} theme={theme} status="Used" extra={m.soldOutInFlight} />
        ));
      }
    }
  });

  app.get("/:reference/qr.svg", { schema: { hide: true } }, async (request, reply) => {
    const { reference } = request.params as { reference: string };
    const link = REFERENCE_PATTERN.test(reference) ? await loadCheckoutLink(deps.db, reference) : undefined;
    if (!link) return sendCheckoutNotFound(request, reply);
    const url = `${deps.publicBaseUrl}/pay/${encodeURIComponent(reference)}`;
    const svg = await QRCode.toString(url, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
    return (
      reply
        .header("content-type", "image/svg+xml; charset=utf-8")
        .header("cache-control", "public, max-age=86400")
        .header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
        // Merchants may show the QR code on their own pages.
        .header("cross-origin-resource-policy", "cross-origin")
        .send(svg)
    );
  });

  function sendCheckoutPage(
    reply: FastifyReply,
    status: number,
    link: CheckoutLink,
    view: { lang: Lang; theme: PageTheme; formToken: string; values: RedisplayValues; errors: FieldError[]; alert?: CheckoutAlert },
  ) {
    const switchHref = `/pay/${encodeURIComponent(link.reference)}?lang=${view.lang === "is" ? "en" : "is"}`;
    return sendPage(
      reply,
      status,
      (nonce) => (
        <CheckoutPage
          lang={view.lang}
          nonce={nonce}
          theme={view.theme}
          link={link}
          formToken={view.formToken}
          values={view.values}
          errors={view.errors}
          alert={view.alert}
          switchHref={switchHref}
        />
      ),
      { returnUrl: link.terms.returnUrl },
    );
  }

  /** The page again with the link's current price and a token for it (409); nothing was charged. */
  function sendPriceChanged(
    reply: FastifyReply,
    link: CheckoutLink,
    view: { lang: Lang; theme: PageTheme; values: RedisplayValues },
    now: Date,
  ) {
    const formToken = issueFormToken(formKey, link.reference, now, priceOf(link));
    return sendCheckoutPage(reply, 409, link, { ...view, formToken, errors: [], alert: { kind: "price-changed" } });
  }

  function sendStatusPage(reply: FastifyReply, link: CheckoutLink, lang: Lang, theme: PageTheme, status: Exclude<LinkStatus, "Active">) {
    const switchHref = `/pay/${encodeURIComponent(link.reference)}?lang=${lang === "is" ? "en" : "is"}`;
    return sendPage(reply, 410, (nonce) => <StatusPage lang={lang} nonce={nonce} theme={theme} status={status} switchHref={switchHref} />);
  }
}

/**
 * The checkout's 404 page for URLs the router rejects before any route runs (a reference over
 * Fastify's parameter length, broken percent-encoding): no such link exists there either.
 */
export function sendCheckoutNotFound(request: FastifyRequest, reply: FastifyReply, postedLang?: Lang) {
  const lang = postedLang ?? requestedLang(request) ?? acceptLanguage(request);
  return sendPage(reply, 404, (nonce) => <StatusPage lang={lang} nonce={nonce} theme={paylinkTheme()} status="NotFound" />);
}

/** Pages that belong to no merchant (not found, errors) wear Paylink's own name. */
function paylinkTheme(): PageTheme {
  return { ...DEFAULT_THEME, name: "Paylink" };
}

function priceOf(link: CheckoutLink): ShownPrice {
  return { amount: link.terms.amount, currency: link.terms.currency };
}

function samePrice(shown: ShownPrice, link: CheckoutLink): boolean {
  return shown.amount === link.terms.amount && shown.currency === link.terms.currency;
}

function statusOf(link: CheckoutLink, now: Date): LinkStatus {
  return deriveStatus({ ...link.terms, disabled: link.disabled, salesCount: link.salesCount }, now);
}

/** The parsed form, or undefined when the request did not send a form. */
function formBody(request: FastifyRequest): Record<string, unknown> | undefined {
  const type = request.headers["content-type"] ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) return undefined;
  const body = request.body;
  return body !== null && typeof body === "object" ? (body as Record<string, unknown>) : {};
}

/**
 * Sends a whole HTML page with its Content-Security-Policy: no inline script at all, styles only
 * under this response's nonce, forms may post only here (and, after a payment, follow the redirect
 * to the merchant's return URL — Chromium applies form-action to that redirect).
 */
function sendPage(reply: FastifyReply, status: number, build: (nonce: string) => VNode, options: { returnUrl?: string | null } = {}) {
  const nonce = randomBytes(16).toString("base64");
  const html = renderDocument(build(nonce));
  const formTargets = ["'self'"];
  if (options.returnUrl) {
    try {
      formTargets.push(new URL(options.returnUrl).origin);
    } catch {
      // stored return URLs were checked on create; an unparsable one simply gets no exception
    }
  }
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    `form-action ${formTargets.join(" ")}`,
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

function baseSecurityHeaders(reply: FastifyReply, publicBaseUrl: string) {
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
function crossSite(request: FastifyRequest, publicBaseUrl: string): boolean {
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

/** ?lang= first (the switch link), then the remembered choice. */
function requestedLang(request: FastifyRequest): Lang | undefined {
  const query = request.query as Record<string, unknown> | undefined;
  if (query && isLang(query.lang)) return query.lang;
  const cookie = readCookie(request.headers.cookie, LANG_COOKIE);
  return isLang(cookie) ? cookie : undefined;
}

function acceptLanguage(request: FastifyRequest): Lang {
  const header = request.headers["accept-language"] ?? "";
  return /^\s*is\b/i.test(header) ? "is" : "en";
}

function rememberLang(reply: FastifyReply, lang: Lang, publicBaseUrl: string) {
  const secure = publicBaseUrl.startsWith("https://") ? "; Secure" : "";
  reply.header("set-cookie", `${LANG_COOKIE}=${lang}; Path=/pay; Max-Age=31536000; SameSite=Lax; HttpOnly${secure}`);
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}
