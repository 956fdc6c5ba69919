// /pay: the hosted checkout. Server-rendered HTML that works without JavaScript.
//   GET  /pay/{reference}          the page (page-route.ts)
//   POST /pay/{reference}          the form (pay-route.tsx; hosted-pay.tsx with a real processor)
//   GET  /pay/{reference}/return/… back from a real processor's page (hosted-pay.tsx)
//   GET  /pay/{reference}/qr.svg   a QR code of the link URL (qr-route.ts)
//   GET  /pay/assets/…             the optional form helper and theme logos (assets-routes.ts)
// Registered a second time at /checkout for hosted-checkout sessions: the same page and form, with
// the session's return, no QR code, and the assets of /pay.
// This plugin has its own HTML error and not-found pages, form-body and cookie parsers and security headers;
// none of them leak into the JSON API.
import cookie from "@fastify/cookie";
import formbody from "@fastify/formbody";
import type { FastifyError, FastifyInstance } from "fastify";
import { sharedSecret } from "../db/checkout-repository.ts";
import { answeredAfterFailedAnswer, unavailableError } from "../http/errors.ts";
import { NO_RATE_LIMITS } from "../http/rate-limit.ts";
import { errorName } from "../payments/error-name.ts";
import { acceptLanguage } from "../web/i18n.ts";
import { baseSecurityHeaders } from "../web/security.ts";
import { assetsRoutes } from "./assets-routes.ts";
import { checkoutBrake } from "./brake.ts";
import type { CheckoutContext, CheckoutDeps } from "./deps.ts";
import { FirstViewCache } from "./first-view-cache.ts";
import { hostedReturnRoute } from "./hosted-pay.tsx";
import { MESSAGES, requestedLang } from "./i18n.ts";
import { paylinkTheme, sendCheckoutNotFound, sendMessagePage } from "./page-response.tsx";
import { pageRoute } from "./page-route.ts";
import { FORM_BODY_LIMIT, payRoute } from "./pay-route.tsx";
import { qrRoute } from "./qr-route.ts";

export { sendCheckoutNotFound } from "./page-response.tsx";

export async function checkoutRoutes(app: FastifyInstance, deps: CheckoutDeps): Promise<void> {
  // Form bodies are parsed only here: the JSON API keeps answering 415 to them.
  await app.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
  // The remembered language (i18n.ts); the JSON API parses no cookies.
  await app.register(cookie);
  const formKey = Buffer.from(await sharedSecret(deps.db, "checkout-form-token"), "hex");
  const context: CheckoutContext = {
    deps,
    formKey,
    brake: checkoutBrake(deps.db, deps.rateLimits ?? NO_RATE_LIMITS, formKey),
    firstViews: new FirstViewCache(),
  };

  app.addHook("onSend", async (_request, reply, payload) => {
    baseSecurityHeaders(reply, deps.publicBaseUrl);
    return payload;
  });

  app.setNotFoundHandler((request, reply) => sendCheckoutNotFound(request, reply));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (answeredAfterFailedAnswer(request, reply, error, "html")) return reply;
    const lang = requestedLang(request) ?? acceptLanguage(request);
    const m = MESSAGES[lang];
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = status === 413 || status === 415 ? status : 400;
      return sendMessagePage(reply, code, lang, paylinkTheme(), m.badRequestTitle, m.badRequestText);
    }
    // The database away or this instance stopping: 503 and Retry-After, the shopper may retry.
    const unavailable = unavailableError(error);
    if (unavailable) {
      if (unavailable.kind === "DatabaseUnavailable") request.log.warn({ error: errorName(error) }, "database unavailable: answered 503");
      reply.headers(unavailable.headers);
      return sendMessagePage(reply, 503, lang, paylinkTheme(), m.errorPageTitle, m.errorPageText);
    }
    // Only the error's name and a digit-masked message: never the request body.
    request.log.error({ error: errorName(error), frames: error.stack?.split("\n").slice(1, 12).join("\n") }, "checkout request failed");
    return sendMessagePage(reply, 500, lang, paylinkTheme(), m.errorPageTitle, m.errorPageText);
  });

  pageRoute(app, context);
  payRoute(app, context);
  hostedReturnRoute(app, context);
  // A session's page is for one shopper, sent there by the shop: no QR code to share.
  if (deps.kind === "link") {
    assetsRoutes(app, context);
    qrRoute(app, context);
  }
}
