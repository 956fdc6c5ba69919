/** @jsxRuntime automatic @jsxImportSource preact */
// GET/POST /portal/reset and /portal/reset/<token> (docs/portal.md#password-reset): "forgot your
// password?" asks for the e-mail and always answers the same; the mailed link sets a new password
// once, within an hour, and sends the person to sign in (with their code, if two-factor is on). The
// token is in the path, so those routes log only warnings: Fastify's request line would carry it.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import Type from "typebox";
import { releaseSigninSlots, takeSigninSlots } from "../db/portal-sessions-repository.ts";
import { resetSubjects, SIGNIN_WINDOW_SECONDS, signinWaitSeconds } from "../domain/portal/signin-brake.ts";
import { clientKey } from "../http/rate-limit.ts";
import { requestPasswordReset, resetLinkUser, resetPassword } from "../services/password-reset.ts";
import { portalCookie, SESSION_COOKIE } from "./cookies.ts";
import type { PortalContext } from "./deps.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { frameOf, sendPortalPage } from "./render.tsx";
import { formField } from "./request-state.ts";
import { publicFormOk, publicFormToken } from "./sign-in.tsx";
import { Layout } from "./views/layout.tsx";
import { NewPasswordField, sendLinkGonePage } from "./views/one-time-link.tsx";

const TokenParams = Type.Object({ token: Type.String({ pattern: "^[A-Za-z0-9_-]{43}$" }) });

export function passwordResetRoutes(fastify: FastifyInstance, context: PortalContext): void {
  const { deps } = context;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const open = { config: { portalPublic: true } };

  function sendRequestForm(request: FastifyRequest, reply: FastifyReply, status: number, state: { notice?: string; problem?: string }) {
    const m = PORTAL_MESSAGES[request.portal.lang].reset;
    const formToken = publicFormToken(request, reply, context);
    return sendPortalPage(reply, status, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={m.title}>
        <div class="card narrow">
          <h1>{m.title}</h1>
          {state.notice ? (
            <div class="alert ok" role="status" data-reset-sent>
              {state.notice}
            </div>
          ) : (
            <p class="muted">{m.intro}</p>
          )}
          {state.problem ? (
            <div class="alert" role="alert">
              {state.problem}
            </div>
          ) : null}
          <form method="post" action="/portal/reset">
            <input type="hidden" name="csrf" value={formToken} />
            <div class="field">
              <label for="email">{m.email}</label>
              <input id="email" name="email" type="email" autocomplete="username" required />
            </div>
            <button type="submit">{m.button}</button>
          </form>
          <p>
            <a href="/portal/sign-in">{PORTAL_MESSAGES[request.portal.lang].invitation.toSignIn}</a>
          </p>
        </div>
      </Layout>
    ));
  }

  app.get("/reset", open, async (request, reply) => {
    const m = PORTAL_MESSAGES[request.portal.lang].reset;
    return sendRequestForm(request, reply, 200, { notice: formField(request.query, "done") === "sent" ? m.sent : undefined });
  });

  app.post("/reset", open, async (request, reply) => {
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang];
    if (!publicFormOk(request, context)) return sendRequestForm(request, reply, 403, { problem: m.signIn.expiredForm });
    const email = formField(request.body, "email").trim().slice(0, 320);
    // Every request counts, whether or not the address has an account: the brake says nothing either.
    const now = deps.now();
    const subjects = resetSubjects(email, clientKey(request));
    const since = new Date(now.getTime() - SIGNIN_WINDOW_SECONDS * 1000);
    const slots = await takeSigninSlots(deps.db, [...subjects], now, since);
    const wait = signinWaitSeconds(slots.others.get(subjects[0]), slots.others.get(subjects[1]), now);
    if (wait > 0) {
      await releaseSigninSlots(deps.db, slots.ids);
      reply.header("retry-after", String(wait));
      return sendRequestForm(request, reply, 429, { problem: m.reset.braked(Math.ceil(wait / 60)) });
    }
    await requestPasswordReset(deps, { email, language: lang, address: request.ip });
    return reply.redirect("/portal/reset?done=sent", 303);
  });

  const withToken = { ...open, logLevel: "warn" as const, schema: { params: TokenParams }, attachValidation: true };

  async function sendNewPasswordForm(request: FastifyRequest, reply: FastifyReply, token: string, status: number, problem?: string) {
    const m = PORTAL_MESSAGES[request.portal.lang].reset;
    const link = token === "" ? "unknown" : await resetLinkUser(deps, token);
    if (typeof link === "string") {
      return sendLinkGonePage(request, reply, {
        state: link,
        title: m.goneTitle,
        text: m[link],
        next: { href: "/portal/reset", label: m.again },
      });
    }
    const formToken = publicFormToken(request, reply, context);
    return sendPortalPage(reply, status, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={m.newTitle}>
        <div class="card narrow">
          <h1>{m.newTitle}</h1>
          <p class="muted">{m.newIntro}</p>
          {problem ? (
            <div class="alert" role="alert">
              {problem}
            </div>
          ) : null}
          <form method="post" action={`/portal/reset/${token}`}>
            <input type="hidden" name="csrf" value={formToken} />
            <NewPasswordField label={m.password} hint={m.passwordHint} />
            <button type="submit">{m.save}</button>
          </form>
        </div>
      </Layout>
    ));
  }

  app.get("/reset/:token", withToken, async (request, reply) =>
    sendNewPasswordForm(request, reply, request.validationError ? "" : request.params.token, 200),
  );

  app.post("/reset/:token", withToken, async (request, reply) => {
    if (request.validationError) return sendNewPasswordForm(request, reply, "", 404);
    const { token } = request.params;
    const m = PORTAL_MESSAGES[request.portal.lang];
    if (!publicFormOk(request, context)) return sendNewPasswordForm(request, reply, token, 403, m.signIn.expiredForm);
    const outcome = await resetPassword(deps, token, formField(request.body, "password"), request.ip);
    if (outcome === "tooShort") return sendNewPasswordForm(request, reply, token, 400, m.reset.shortPassword);
    if (outcome !== "reset") return sendNewPasswordForm(request, reply, token, 410);
    // Every session of the user ended with the reset; this browser's cookie goes too.
    reply.clearCookie(SESSION_COOKIE, portalCookie(deps.publicBaseUrl));
    return reply.redirect("/portal/sign-in?notice=password-reset", 303);
  });
}
