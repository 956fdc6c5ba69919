/** @jsxRuntime automatic @jsxImportSource preact */
// GET/POST /portal/sign-in/code (docs/portal.md#two-factor-sign-in): the second step of signing in
// for a user with two-factor sign-in. The session the password started can do nothing but this;
// a right code (or an unused recovery code) replaces it with a new, full session (a fresh random
// value), and wrong codes are braked per user and per address exactly like wrong passwords.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { insertAuditEntry } from "../db/audit-repository.ts";
import {
  clearSigninFailures,
  createPortalSession,
  deletePortalSession,
  releaseSigninSlots,
  takeSigninSlots,
} from "../db/portal-sessions-repository.ts";
import { addressSubject, SIGNIN_WINDOW_SECONDS, secondFactorSubject, signinWaitSeconds } from "../domain/portal/signin-brake.ts";
import { clientKey } from "../http/rate-limit.ts";
import { checkSecondFactor } from "../services/two-factor.ts";
import { portalCookie, SESSION_COOKIE } from "./cookies.ts";
import type { PortalContext } from "./deps.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { frameOf, sendPortalPage } from "./render.tsx";
import { formField, portalActor } from "./request-state.ts";
import { safeNext, sessionOrigin } from "./sign-in.tsx";
import { Csrf, Layout } from "./views/layout.tsx";

/**
 * Takes an attempt's place in the brake of `subject` (and of the client's address), runs `check`
 * when the brake allows, and gives the place back unless the attempt failed. Returns the seconds
 * to wait (the attempt was not tried) or whether it was right. Shared by the code step, turning
 * two-factor on and off, and the account page's current password.
 */
export async function brakedAttempt(
  context: PortalContext,
  request: FastifyRequest,
  subject: string,
  check: () => Promise<boolean>,
): Promise<{ wait: number; ok: boolean }> {
  const { deps } = context;
  const now = deps.now();
  const subjects = [subject, addressSubject(clientKey(request))] as const;
  const since = new Date(now.getTime() - SIGNIN_WINDOW_SECONDS * 1000);
  const slots = await takeSigninSlots(deps.db, [...subjects], now, since);
  const wait = signinWaitSeconds(slots.others.get(subjects[0]), slots.others.get(subjects[1]), now);
  if (wait > 0) {
    await releaseSigninSlots(deps.db, slots.ids);
    return { wait, ok: false };
  }
  if (!(await check())) return { wait: 0, ok: false };
  const [userSlot, addressSlot] = slots.ids as [number, number];
  await releaseSigninSlots(deps.db, [addressSlot]);
  await clearSigninFailures(deps.db, subjects[0], userSlot);
  return { wait: 0, ok: true };
}

export function signInCodeRoutes(app: FastifyInstance, context: PortalContext): void {
  const { deps } = context;
  const step = { config: { secondFactorStep: "only", portalAction: "own-account", enrolmentStep: true } as const };

  app.get("/sign-in/code", step, async (request, reply) => sendCodePage(request, reply, 200, formField(request.query, "next")));

  app.post("/sign-in/code", step, async (request, reply) => {
    const session = request.portal.session!;
    const next = formField(request.body, "next");
    const code = formField(request.body, "code").slice(0, 100);
    const { wait, ok } = await brakedAttempt(context, request, secondFactorSubject(session.userId), () =>
      checkSecondFactor(deps, session.userId, code),
    );
    if (wait > 0) {
      reply.header("retry-after", String(wait));
      const text = PORTAL_MESSAGES[request.portal.lang].twoFactor.braked(Math.ceil(wait / 60));
      return sendCodePage(request, reply, 429, next, text);
    }
    const event = (action: "sign-in" | "sign-in.failed") => ({
      merchantId: session.merchantId,
      actor: portalActor(request),
      action,
      object: { type: "user" as const, id: session.userId },
      details: { secondFactor: true },
    });
    if (!ok) {
      request.log.info({ address: clientKey(request) }, "portal second factor failed");
      await insertAuditEntry(deps.db, event("sign-in.failed"));
      return sendCodePage(request, reply, 401, next, PORTAL_MESSAGES[request.portal.lang].signInCode.wrong);
    }
    const pending = request.cookies[SESSION_COOKIE];
    if (pending) await deletePortalSession(deps.db, pending);
    const token = await createPortalSession(deps.db, session, sessionOrigin(request));
    await insertAuditEntry(deps.db, event("sign-in"));
    reply.setCookie(SESSION_COOKIE, token, portalCookie(deps.publicBaseUrl));
    request.log.info({ userId: session.userId, merchantId: session.merchantId }, "portal sign-in");
    return reply.redirect(safeNext(next), 303);
  });

  function sendCodePage(request: FastifyRequest, reply: FastifyReply, status: number, next: string, problem?: string) {
    const m = PORTAL_MESSAGES[request.portal.lang].signInCode;
    const session = request.portal.session!;
    return sendPortalPage(reply, status, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={m.title}>
        <div class="card narrow">
          <h1>{m.title}</h1>
          <p class="muted">{m.intro}</p>
          {problem ? (
            <div class="alert" role="alert">
              {problem}
            </div>
          ) : null}
          <form method="post" action="/portal/sign-in/code">
            <Csrf token={session.csrfToken} />
            <input type="hidden" name="next" value={next} />
            <div class="field">
              <label for="code">{m.code}</label>
              <input id="code" name="code" autocomplete="one-time-code" inputmode="text" required maxlength={40} />
            </div>
            <button type="submit">{m.button}</button>
          </form>
          <form method="post" action="/portal/sign-out">
            <Csrf token={session.csrfToken} />
            <button type="submit" class="link-button">
              {m.cancel}
            </button>
          </form>
        </div>
      </Layout>
    ));
  }
}
