// What every portal request knows before its handler runs: its language and its session, and the
// locks in front of every handler: a page needs a session (else the sign-in page), a session
// waiting for its second factor (or required to enrol in it) reaches only those steps, a POST needs
// the session's CSRF token (else 403, nothing changed), and a route's action must be one the
// session's role may do (docs/portal.md#users-and-roles; else 403, nothing changed).
import type { FastifyReply, FastifyRequest } from "fastify";
import { deletePortalSession, findPortalSession, type PortalSession } from "../db/portal-sessions-repository.ts";
import { type Actor, userActor } from "../domain/audit/actor.ts";
import { may, type PortalAction } from "../domain/portal/roles.ts";
import type { Lang } from "../web/i18n.ts";
import { crossSite } from "../web/security.ts";
import { portalCookie, SESSION_COOKIE } from "./cookies.ts";
import { sameSecret } from "./csrf.ts";
import { type PortalContext, SESSION_IDLE_SECONDS, SESSION_MAX_AGE_SECONDS } from "./deps.ts";
import { PORTAL_MESSAGES, portalLang } from "./i18n.ts";
import { sendMessagePage } from "./render.tsx";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the portal's first hook on every /portal request. */
    portal: { lang: Lang; session: PortalSession | undefined };
  }
  interface FastifyContextConfig {
    /** A portal route open without a session (sign-in, assets). */
    portalPublic?: boolean;
    /**
     * What the route changes, checked against the session's role before the handler runs; every
     * POST names one ("own-account": the user's own password, two-factor and sessions).
     */
    portalAction?: PortalAction | "own-account";
    /**
     * Open to a session that has given its password but not yet its second factor: "only" to it
     * (the code page), "also" (sign-out).
     */
    secondFactorStep?: "only" | "also";
    /** Open to a user who must enrol in two-factor sign-in before anything else. */
    enrolmentStep?: boolean;
  }
}

export function loadRequestState({ deps }: PortalContext) {
  return async function load(request: FastifyRequest, reply: FastifyReply) {
    const lang = portalLang(request, reply, deps.publicBaseUrl);
    // Known before the session is looked up, so a database that is away still gets a page in this language.
    request.portal = { lang, session: undefined };
    const token = request.cookies[SESSION_COOKIE];
    let session: PortalSession | undefined;
    if (token && /^[A-Za-z0-9_-]{43}$/.test(token)) {
      const limits = { idleSeconds: deps.sessionIdleSeconds ?? SESSION_IDLE_SECONDS, maxAgeSeconds: SESSION_MAX_AGE_SECONDS };
      session = await findPortalSession(deps.db, token, limits, deps.now());
    }
    if (token && !session) reply.clearCookie(SESSION_COOKIE, portalCookie(deps.publicBaseUrl));
    request.portal = { lang, session };
  };
}

export function guardRequest({ deps }: PortalContext) {
  return async function guard(request: FastifyRequest, reply: FastifyReply) {
    if (request.routeOptions.config.portalPublic) return;
    const { session, lang } = request.portal;
    if (!session) {
      // A page (or a form posted after the session ended) goes to the sign-in page; nothing runs.
      const next = request.method === "GET" ? `&next=${encodeURIComponent(request.url)}` : "";
      return reply.redirect(`/portal/sign-in?notice=ended${next}`, 303);
    }
    const config = request.routeOptions.config;
    if (session.secondFactorPending && !config.secondFactorStep) return reply.redirect("/portal/sign-in/code", 303);
    if (!session.secondFactorPending && config.secondFactorStep === "only") return reply.redirect("/portal/overview", 303);
    if (session.twoFactorRequired && !session.twoFactorEnabled && !config.enrolmentStep) {
      return reply.redirect("/portal/account/two-factor?required=1", 303);
    }
    const m = PORTAL_MESSAGES[lang].errors;
    if (request.method === "POST") {
      const given = formField(request.body, "csrf");
      if (!sameSecret(session.csrfToken, given) || crossSite(request, deps.publicBaseUrl)) {
        request.log.warn({ path: request.routeOptions.url }, "portal form refused: missing or wrong CSRF token");
        return sendMessagePage(request, reply, 403, m.forbiddenTitle, m.forbiddenText);
      }
    }
    const action = config.portalAction;
    if (action !== undefined && action !== "own-account" && !may(session.role, action)) {
      request.log.warn({ path: request.routeOptions.url, role: session.role }, "portal action refused: not for this role");
      return sendMessagePage(request, reply, 403, m.notAllowedTitle, m.notAllowedText);
    }
  };
}

/**
 * Refuses at start-up a portal POST that names no action: a form that changes something and
 * forgot to say what would otherwise be open to every role.
 */
export function requireActionOnPosts(route: { method: string | string[]; url: string; config?: unknown }): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.includes("POST")) return;
  const config = (route.config ?? {}) as { portalPublic?: boolean; portalAction?: string };
  if (!config.portalPublic && config.portalAction === undefined) {
    throw new Error(`portal route POST ${route.url} names no portalAction`);
  }
}

/** One posted form field as text (the first of repeated ones); "" when absent. */
export function formField(body: unknown, name: string): string {
  if (body === null || typeof body !== "object" || !Object.hasOwn(body, name)) return "";
  const raw: unknown = (body as Record<string, unknown>)[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === "string" ? value : "";
}

/** Ends the session of this request's cookie, here and on every instance. */
export async function endSession(request: FastifyRequest, reply: FastifyReply, { deps }: PortalContext): Promise<void> {
  const token = request.cookies[SESSION_COOKIE];
  if (token) await deletePortalSession(deps.db, token);
  reply.clearCookie(SESSION_COOKIE, portalCookie(deps.publicBaseUrl));
}

/** "Who" of a signed-in portal request, for the audit log: the session's user and the client's address. */
export function portalActor(request: FastifyRequest): Actor {
  const session = request.portal.session;
  if (!session) throw new Error("portalActor needs a signed-in request");
  return userActor(session, request.ip);
}
