/** @jsxRuntime automatic @jsxImportSource preact */
// GET/POST /portal/sign-in and POST /portal/sign-out (docs/portal.md#sign-in). A correct e-mail and
// password start a new session (a fresh random value: no session fixation); wrong ones are counted
// per account and per address, and past the limit the form answers 429 saying when to try again.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { insertAuditEntry } from "../db/audit-repository.ts";
import {
  clearSigninFailures,
  createPortalSession,
  deleteOldSigninFailures,
  deleteStalePortalSessions,
  findPortalUserByEmail,
  type PortalUser,
  releaseSigninSlots,
  type SessionOrigin,
  takeSigninSlots,
} from "../db/portal-sessions-repository.ts";
import { userActor } from "../domain/audit/actor.ts";
import type { AuditEvent } from "../domain/audit/entry.ts";
import { accountSubject, addressSubject, SIGNIN_WINDOW_SECONDS, signinWaitSeconds } from "../domain/portal/signin-brake.ts";
import { clientKey } from "../http/rate-limit.ts";
import { verifyPassword } from "../security/passwords.ts";
import { crossSite } from "../web/security.ts";
import { portalCookie, SESSION_COOKIE, SIGNIN_COOKIE } from "./cookies.ts";
import { newSigninNonce, signinToken, validSigninToken } from "./csrf.ts";
import { type PortalContext, SESSION_IDLE_SECONDS } from "./deps.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { frameOf, sendPortalPage } from "./render.tsx";
import { endSession, formField } from "./request-state.ts";
import { Layout } from "./views/layout.tsx";

/** Checked against when the e-mail is unknown, so a wrong address costs as long as a wrong password. */
const DUMMY_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

type Notice = "wrong" | "braked" | "expiredForm" | "signedOut" | "sessionEnded" | "passwordReset";

export function signInRoutes(app: FastifyInstance, context: PortalContext): void {
  const { deps } = context;
  const open = { config: { portalPublic: true } };

  app.get("/", open, async (request, reply) => reply.redirect(request.portal.session ? "/portal/overview" : "/portal/sign-in", 303));

  app.get("/sign-in", open, async (request, reply) => {
    if (request.portal.session) return reply.redirect("/portal/overview", 303);
    const query = request.query;
    const noticeParam = typeof query === "object" && query !== null && "notice" in query ? query.notice : undefined;
    const notices: Record<string, Notice> = { ended: "sessionEnded", "signed-out": "signedOut", "password-reset": "passwordReset" };
    const notice = typeof noticeParam === "string" ? notices[noticeParam] : undefined;
    const next = typeof query === "object" && query !== null && "next" in query && typeof query.next === "string" ? query.next : "";
    return sendSignIn(request, reply, 200, { notice, next });
  });

  app.post("/sign-in", open, async (request, reply) => {
    const now = deps.now();
    const email = formField(request.body, "email").trim().slice(0, 320);
    const password = formField(request.body, "password");
    const next = formField(request.body, "next");
    // The same cross-site check as every other portal form (request-state.ts), before anything is counted.
    if (!publicFormOk(request, context)) {
      return sendSignIn(request, reply, 403, { notice: "expiredForm", email, next });
    }
    const subjects = [accountSubject(email), addressSubject(clientKey(request))] as const;
    const since = new Date(now.getTime() - SIGNIN_WINDOW_SECONDS * 1000);
    // The attempt's place in the brake is taken before the password is checked, and kept as a failure unless it was right.
    const slots = await takeSigninSlots(deps.db, [...subjects], now, since);
    const wait = signinWaitSeconds(slots.others.get(subjects[0]), slots.others.get(subjects[1]), now);
    if (wait > 0) {
      await releaseSigninSlots(deps.db, slots.ids);
      reply.header("retry-after", String(wait));
      return sendSignIn(request, reply, 429, { notice: "braked", waitSeconds: wait, email, next });
    }
    const user = email === "" ? undefined : await findPortalUserByEmail(deps.db, email);
    const passwordOk = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
    if (!user || !passwordOk) {
      request.log.info({ address: clientKey(request) }, "portal sign-in failed");
      // In the account's merchant's audit log (never the password typed). An e-mail of no account
      // belongs to no merchant: the brake and the log above keep that one.
      if (user) await insertAuditEntry(deps.db, signInEvent(user, request.ip, "sign-in.failed"));
      return sendSignIn(request, reply, 401, { notice: "wrong", email, next });
    }
    const [accountSlot, addressSlot] = slots.ids as [number, number];
    await releaseSigninSlots(deps.db, [addressSlot]);
    await clearSigninFailures(deps.db, subjects[0], accountSlot);
    // Housekeeping where it costs nothing noticeable: old failures and dead sessions go.
    await deleteOldSigninFailures(deps.db, since);
    await deleteStalePortalSessions(deps.db, deps.sessionIdleSeconds ?? SESSION_IDLE_SECONDS);
    const origin = sessionOrigin(request);
    if (user.twoFactorEnabled) {
      // The password was right; the session can do nothing but take the code (sign-in-code.tsx).
      const pending = await createPortalSession(deps.db, user, origin, true);
      reply.setCookie(SESSION_COOKIE, pending, portalCookie(deps.publicBaseUrl));
      return reply.redirect(`/portal/sign-in/code?next=${encodeURIComponent(safeNext(next))}`, 303);
    }
    const token = await createPortalSession(deps.db, user, origin);
    await insertAuditEntry(deps.db, signInEvent(user, request.ip, "sign-in"));
    reply.setCookie(SESSION_COOKIE, token, portalCookie(deps.publicBaseUrl));
    request.log.info({ userId: user.userId, merchantId: user.merchantId }, "portal sign-in");
    return reply.redirect(safeNext(next), 303);
  });

  app.post(
    "/sign-out",
    { config: { portalAction: "own-account", secondFactorStep: "also", enrolmentStep: true } },
    async (request, reply) => {
      await endSession(request, reply, context);
      return reply.redirect("/portal/sign-in?notice=signed-out", 303);
    },
  );

  function sendSignIn(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    state: { notice?: Notice | undefined; waitSeconds?: number; email?: string; next?: string },
  ) {
    const m = PORTAL_MESSAGES[request.portal.lang].signIn;
    const formToken = publicFormToken(request, reply, context);
    const noticeText =
      state.notice === "braked"
        ? m.braked(Math.ceil((state.waitSeconds ?? 60) / 60))
        : state.notice === "passwordReset"
          ? PORTAL_MESSAGES[request.portal.lang].reset.done
          : state.notice
            ? m[state.notice]
            : null;
    const problem = state.notice === "wrong" || state.notice === "braked" || state.notice === "expiredForm";
    return sendPortalPage(reply, status, (pageNonce) => (
      <Layout {...frameOf(request, pageNonce)} title={m.title}>
        <div class="card narrow">
          <h1>{m.title}</h1>
          <p class="muted">{m.intro}</p>
          {noticeText ? (
            <div class={problem ? "alert" : "alert info"} role={problem ? "alert" : "status"}>
              {noticeText}
            </div>
          ) : null}
          <form method="post" action="/portal/sign-in">
            <input type="hidden" name="csrf" value={formToken} />
            <input type="hidden" name="next" value={state.next ?? ""} />
            <div class="field">
              <label for="email">{m.email}</label>
              <input id="email" name="email" type="email" autocomplete="username" required value={state.email ?? ""} />
            </div>
            <div class="field">
              <label for="password">{m.password}</label>
              <input id="password" name="password" type="password" autocomplete="current-password" required />
            </div>
            <button type="submit">{m.button}</button>
          </form>
          <p>
            <a href="/portal/reset">{PORTAL_MESSAGES[request.portal.lang].reset.forgot}</a>
          </p>
        </div>
      </Layout>
    ));
  }
}

/**
 * The CSRF token of a form shown before anyone is signed in (sign-in, password reset, accepting an
 * invitation): one random cookie per browser, kept while valid so two open tabs both work.
 */
export function publicFormToken(request: FastifyRequest, reply: FastifyReply, { deps, signInKey }: PortalContext): string {
  const existing = request.cookies[SIGNIN_COOKIE];
  const nonce = existing && /^[A-Za-z0-9_-]{24}$/.test(existing) ? existing : newSigninNonce();
  reply.setCookie(SIGNIN_COOKIE, nonce, portalCookie(deps.publicBaseUrl));
  return signinToken(signInKey, nonce);
}

/** Whether a form of publicFormToken came back from this site with its token. */
export function publicFormOk(request: FastifyRequest, { deps, signInKey }: PortalContext): boolean {
  const tokenOk = validSigninToken(signInKey, request.cookies[SIGNIN_COOKIE], formField(request.body, "csrf"));
  return tokenOk && !crossSite(request, deps.publicBaseUrl);
}

function signInEvent(user: PortalUser, address: string, action: "sign-in" | "sign-in.failed"): AuditEvent {
  return { merchantId: user.merchantId, actor: userActor(user, address), action, object: { type: "user", id: user.userId } };
}

/** Where a session starts from, for the user's session list. */
export function sessionOrigin(request: FastifyRequest): SessionOrigin {
  const agent = request.headers["user-agent"];
  return { address: clientKey(request), userAgent: typeof agent === "string" ? agent : "" };
}

/**
 * Only a portal path of this site: never an open redirect to another one. Printable ASCII only:
 * a Location header cannot carry anything else (a path the browser sent is percent-encoded anyway).
 */
export function safeNext(next: string): string {
  return /^\/portal\/[^/\\]/.test(next) && /^[\x21-\x7e]*$/.test(next) ? next : "/portal/overview";
}
