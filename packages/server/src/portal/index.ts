// /portal: the merchant portal (docs/portal.md). Server-rendered pages that work without
// JavaScript, for a merchant's people signed in with e-mail and password. One file per page or
// action; every one is registered here, explicitly. The plugin has its own form-body parser, HTML
// error and not-found pages and security headers; none of them leak into the JSON API.
import cookie from "@fastify/cookie";
import formbody from "@fastify/formbody";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sharedSecret } from "../db/checkout-repository.ts";
import { answeredAfterFailedAnswer, unavailableError } from "../http/errors.ts";
import { errorName } from "../payments/error-name.ts";
import { baseSecurityHeaders } from "../web/security.ts";
import { accountRoutes } from "./account.tsx";
import { PORTAL_JS } from "./assets.ts";
import { auditRoutes } from "./audit.tsx";
import { customersRoutes } from "./customers.tsx";
import type { PortalContext, PortalDeps } from "./deps.ts";
import { developersRoutes } from "./developers.tsx";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { linkDetailRoutes } from "./link-detail.tsx";
import { linkSaveRoutes } from "./link-save.tsx";
import { linksListRoute } from "./links-list.tsx";
import { notificationsRoutes } from "./notifications.tsx";
import { overviewRoutes } from "./overview.tsx";
import { passwordResetRoutes } from "./password-reset.tsx";
import { paymentDetailRoute } from "./payment-detail.tsx";
import { paymentsRoutes } from "./payments.tsx";
import { sendMessagePage, sendPortalNotFound as sendNotFound } from "./render.tsx";
import { guardRequest, loadRequestState, requireActionOnPosts } from "./request-state.ts";
import { savedCardsRoutes } from "./saved-cards.tsx";
import { signInRoutes } from "./sign-in.tsx";
import { signInCodeRoutes } from "./sign-in-code.tsx";
import { terminalProcessorRoutes } from "./terminal-processor.tsx";
import { themesRoutes } from "./themes.tsx";
import { twoFactorRoutes } from "./two-factor.tsx";
import { usersRoutes } from "./users.tsx";
import { webhookEndpointRoutes } from "./webhook-endpoint.tsx";

/** For URLs the router refuses before any portal hook runs (broken percent-encoding…). */
export function sendPortalNotFound(request: FastifyRequest, reply: FastifyReply) {
  request.portal ??= { lang: "en", session: undefined };
  return sendNotFound(request, reply);
}

/** Form bodies larger than this are refused (413) before they are parsed. */
const FORM_BODY_LIMIT = 256 * 1024;

export async function portalRoutes(app: FastifyInstance, deps: PortalDeps): Promise<void> {
  await app.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
  // Here, not on the app: the JSON API parses no cookies.
  await app.register(cookie);
  const context: PortalContext = { deps, signInKey: Buffer.from(await sharedSecret(deps.db, "portal-signin-token"), "hex") };

  app.addHook("onRoute", requireActionOnPosts);
  app.addHook("onRequest", loadRequestState(context));
  app.addHook("preHandler", guardRequest(context));
  app.addHook("onSend", async (_request, reply, payload) => {
    baseSecurityHeaders(reply, deps.publicBaseUrl);
    return payload;
  });
  app.setNotFoundHandler((request, reply) => sendNotFound(request, reply));
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (answeredAfterFailedAnswer(request, reply, error, "html")) return reply;
    request.portal ??= { lang: "en", session: undefined };
    const m = PORTAL_MESSAGES[request.portal.lang].errors;
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendMessagePage(request, reply, status, m.badRequestTitle, m.badRequestText);
    // The database away or this instance stopping: a calm 503 with Retry-After; nothing was lost.
    const unavailable = unavailableError(error);
    if (unavailable) {
      if (unavailable.kind === "DatabaseUnavailable") request.log.warn({ error: errorName(error) }, "database unavailable: answered 503");
      reply.headers(unavailable.headers);
      return sendMessagePage(request, reply, 503, m.unavailableTitle, m.unavailableText);
    }
    // The error's name and stack frames only: never the posted form (it may hold a password).
    request.log.error({ error: errorName(error), frames: error.stack?.split("\n").slice(1, 12).join("\n") }, "portal request failed");
    return sendMessagePage(request, reply, 500, m.serverTitle, m.serverText);
  });

  app.get("/assets/portal.js", { config: { portalPublic: true } }, async (_request, reply) =>
    reply
      .header("content-type", "text/javascript; charset=utf-8")
      .header("cache-control", "public, max-age=31536000, immutable")
      .send(PORTAL_JS),
  );
  signInRoutes(app, context);
  signInCodeRoutes(app, context);
  passwordResetRoutes(app, context);
  accountRoutes(app, context);
  twoFactorRoutes(app, context);
  usersRoutes(app, context);
  overviewRoutes(app, context);
  linksListRoute(app, context);
  linkSaveRoutes(app, context);
  linkDetailRoutes(app, context);
  paymentsRoutes(app, context);
  paymentDetailRoute(app, context);
  customersRoutes(app, context);
  savedCardsRoutes(app, context);
  developersRoutes(app, context);
  webhookEndpointRoutes(app, context);
  terminalProcessorRoutes(app, context);
  themesRoutes(app, context);
  auditRoutes(app, context);
  notificationsRoutes(app, context);
}
