/** @jsxRuntime automatic @jsxImportSource preact */
// GET /portal/account (docs/portal.md#account): the signed-in person's own account — change the
// password (the current one required; every other session ends), whether two-factor sign-in is on
// (set up and turned off on two-factor.tsx), and their sessions, each of which can be ended.
// Every role has this page: it changes nothing of the merchant's.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { endUserSession, endUserSessions, listUserSessions } from "../db/portal-sessions-repository.ts";
import { countUnusedRecoveryCodes } from "../db/portal-users-repository.ts";
import { accountSubject } from "../domain/portal/signin-brake.ts";
import { changeAndRecord } from "../services/audit.ts";
import { changePassword, MIN_PASSWORD_LENGTH, type PasswordChangeOutcome } from "../services/change-password.ts";
import { formatDateTime } from "../web/i18n.ts";
import type { PortalContext } from "./deps.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { NOTIFICATION_MESSAGES } from "./notifications-i18n.ts";
import { frameOf, sendPortalNotFound, sendPortalPage } from "./render.tsx";
import { formField, portalActor } from "./request-state.ts";
import { IdParams } from "./schemas.ts";
import { brakedAttempt } from "./sign-in-code.tsx";
import { sendConfirmPage } from "./views/confirm.tsx";
import { Csrf, Layout } from "./views/layout.tsx";
import { TableHead, TableWrap } from "./views/table.tsx";

export function accountRoutes(fastify: FastifyInstance, context: PortalContext): void {
  const { deps } = context;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const own = { config: { portalAction: "own-account" as const } };

  async function sendAccount(request: FastifyRequest, reply: FastifyReply, status: number, problem?: string) {
    const session = request.portal.session!;
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang];
    const a = m.account;
    const [sessions, recoveryLeft] = await Promise.all([
      listUserSessions(deps.db, session.userId),
      session.twoFactorEnabled ? countUnusedRecoveryCodes(deps.db, session.userId) : Promise.resolve(0),
    ]);
    const notices: Record<string, string> = { password: a.passwordChanged, ended: a.sessionEnded, "others-ended": a.othersEnded };
    const notice = notices[formField(request.query, "done")];
    return sendPortalPage(reply, status, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={a.title} section="account">
        <h1>{a.title}</h1>
        {notice ? (
          <div class="alert ok" role="status">
            {notice}
          </div>
        ) : null}
        <div class="grid two">
          <section class="card" aria-labelledby="password-title">
            <h2 id="password-title">{a.passwordTitle}</h2>
            {problem ? (
              <div class="alert" role="alert">
                {problem}
              </div>
            ) : null}
            <form method="post" action="/portal/account/password">
              <Csrf token={session.csrfToken} />
              {/* A password manager files the new password under this account. */}
              <input type="hidden" name="username" value={session.email} autocomplete="username" />
              <div class="field">
                <label for="current-password">{a.currentPassword}</label>
                <input id="current-password" name="current" type="password" autocomplete="current-password" required />
              </div>
              <div class="field">
                <label for="new-password">
                  {a.newPassword}
                  <span class="hint" id="new-password-hint">
                    {a.newPasswordHint}
                  </span>
                </label>
                <input
                  id="new-password"
                  name="password"
                  type="password"
                  autocomplete="new-password"
                  minlength={MIN_PASSWORD_LENGTH}
                  aria-describedby="new-password-hint"
                  required
                />
              </div>
              <button type="submit">{a.changePassword}</button>
            </form>
          </section>
          <section class="card" aria-labelledby="two-factor-title">
            <h2 id="two-factor-title">{a.twoFactorTitle}</h2>
            <p data-two-factor={session.twoFactorEnabled ? "on" : "off"}>{session.twoFactorEnabled ? a.twoFactorOn : a.twoFactorOff}</p>
            {session.twoFactorEnabled ? <p class="muted">{a.recoveryLeft(recoveryLeft)}</p> : null}
            <a class="button secondary" href="/portal/account/two-factor">
              {session.twoFactorEnabled ? m.twoFactor.disableTitle : a.setUp}
            </a>
          </section>
          <section class="card" aria-labelledby="notifications-title">
            <h2 id="notifications-title">{NOTIFICATION_MESSAGES[lang].title}</h2>
            <p class="muted">{NOTIFICATION_MESSAGES[lang].intro}</p>
            <a class="button secondary" href="/portal/account/notifications">
              {NOTIFICATION_MESSAGES[lang].title}
            </a>
          </section>
        </div>
        {/* The table's own scroll region is the named landmark; this card is only its frame. */}
        <div class="card">
          <h2 id="sessions-title">{a.sessionsTitle}</h2>
          <TableWrap label={a.sessionsTitle}>
            <table data-sessions class="cards">
              <TableHead columns={[a.started, a.lastSeen, a.address, a.browser, { hidden: a.endSession }]} />
              <tbody>
                {sessions.map((s) => (
                  <tr key={s.sessionId} data-session={s.sessionId}>
                    <td data-label={a.started}>
                      <span>{formatDateTime(s.createdAt, lang)}</span>
                    </td>
                    <td data-label={a.lastSeen}>
                      <span>{formatDateTime(s.lastSeenAt, lang)}</span>
                    </td>
                    <td class="mono" data-label={a.address}>
                      <span>{s.address ?? a.unknown}</span>
                    </td>
                    <td data-label={a.browser}>
                      <span>{s.userAgent || a.unknown}</span>
                    </td>
                    <td class="row-actions">
                      {s.sessionId === session.sessionId ? (
                        <span class="pill ok">{a.thisSession}</span>
                      ) : (
                        // Ending a session asks first: the link leads to the question (a GET).
                        <a
                          class="button secondary"
                          href={`/portal/account/sessions/${s.sessionId}/end`}
                          aria-label={a.endSessionLabel(formatDateTime(s.createdAt, lang))}
                        >
                          {a.endSession}
                        </a>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          {sessions.length > 1 ? (
            <p class="actions">
              <a class="button danger" href="/portal/account/sessions/end-others">
                {a.endOthers}
              </a>
            </p>
          ) : null}
        </div>
      </Layout>
    ));
  }

  app.get("/account", async (request, reply) => sendAccount(request, reply, 200));

  app.post("/account/password", own, async (request, reply) => {
    const session = request.portal.session!;
    const a = PORTAL_MESSAGES[request.portal.lang].account;
    const next = formField(request.body, "password");
    if (next.length < MIN_PASSWORD_LENGTH) return sendAccount(request, reply, 400, a.shortPassword);
    // The current password is braked like sign-in's (the same count): a session left open is no
    // way to guess it.
    const result: { outcome: PasswordChangeOutcome } = { outcome: "wrongPassword" };
    const { wait } = await brakedAttempt(context, request, accountSubject(session.email), async () => {
      result.outcome = await changePassword(deps.db, session, formField(request.body, "current"), next, portalActor(request));
      return result.outcome === "changed";
    });
    if (wait > 0) {
      reply.header("retry-after", String(wait));
      return sendAccount(request, reply, 429, PORTAL_MESSAGES[request.portal.lang].signIn.braked(Math.ceil(wait / 60)));
    }
    if (result.outcome === "tooShort") return sendAccount(request, reply, 400, a.shortPassword);
    if (result.outcome !== "changed") return sendAccount(request, reply, 400, a.wrongPassword);
    request.log.info({ userId: session.userId }, "portal password changed");
    return reply.redirect("/portal/account?done=password", 303);
  });

  app.get("/account/sessions/end-others", async (request, reply) => {
    const a = PORTAL_MESSAGES[request.portal.lang].account;
    return sendConfirmPage(request, reply, {
      question: a.confirmEndOthers,
      consequence: a.confirmEndOthersText,
      action: "/portal/account/sessions/end-others",
      button: a.endOthers,
      back: "/portal/account",
      section: "account",
    });
  });

  app.post("/account/sessions/end-others", own, async (request, reply) => {
    const session = request.portal.session!;
    await changeAndRecord(
      deps.db,
      (trx) => endUserSessions(trx, session.userId, session.sessionId),
      () => ({
        merchantId: session.merchantId,
        actor: portalActor(request),
        action: "user.sessions-end",
        object: { type: "user", id: session.userId },
      }),
    );
    return reply.redirect("/portal/account?done=others-ended", 303);
  });

  app.get("/account/sessions/:id/end", { schema: { params: IdParams }, attachValidation: true }, async (request, reply) => {
    const session = request.portal.session!;
    const { lang } = request.portal;
    const a = PORTAL_MESSAGES[lang].account;
    // Only another of this person's own sessions can be asked about; anything else is not found.
    const found = request.validationError
      ? undefined
      : (await listUserSessions(deps.db, session.userId)).find(
          (s) => s.sessionId === request.params.id && s.sessionId !== session.sessionId,
        );
    if (!found) return sendPortalNotFound(request, reply);
    return sendConfirmPage(request, reply, {
      question: a.confirmEnd(formatDateTime(found.createdAt, lang)),
      consequence: a.confirmEndText,
      action: `/portal/account/sessions/${found.sessionId}/end`,
      button: a.endSession,
      back: "/portal/account",
      section: "account",
    });
  });

  app.post("/account/sessions/:id/end", { ...own, schema: { params: IdParams }, attachValidation: true }, async (request, reply) => {
    const session = request.portal.session!;
    // This session is ended by signing out; another user's session (or none) is not found.
    const ended =
      !request.validationError &&
      request.params.id !== session.sessionId &&
      (await changeAndRecord(
        deps.db,
        (trx) => endUserSession(trx, session.userId, request.params.id),
        (done) =>
          done
            ? {
                merchantId: session.merchantId,
                actor: portalActor(request),
                action: "user.sessions-end",
                object: { type: "user", id: session.userId },
              }
            : undefined,
      ));
    if (!ended) return sendPortalNotFound(request, reply);
    return reply.redirect("/portal/account?done=ended", 303);
  });
}
