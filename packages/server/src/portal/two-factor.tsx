/** @jsxRuntime automatic @jsxImportSource preact */
// GET /portal/account/two-factor and its forms (docs/portal.md#two-factor-sign-in): set up TOTP
// two-factor sign-in — start (a new secret, sealed), scan the QR code or type the key, confirm
// with a code, and see the ten recovery codes once — or turn it off with a code. Reachable by a
// user whose merchant requires two-factor and who has none yet: everything else sends them here.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import QRCode from "qrcode";
import { secondFactorSubject } from "../domain/portal/signin-brake.ts";
import { totpUri } from "../domain/portal/totp.ts";
import { confirmTwoFactor, disableTwoFactor, readTotpSecret, startTwoFactorEnrolment } from "../services/two-factor.ts";
import type { PortalContext } from "./deps.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { frameOf, sendPortalPage } from "./render.tsx";
import { formField, portalActor } from "./request-state.ts";
import { showOnce, takeShownOnce } from "./shown-once.ts";
import { brakedAttempt } from "./sign-in-code.tsx";
import { Csrf, Layout } from "./views/layout.tsx";

export function twoFactorRoutes(app: FastifyInstance, context: PortalContext): void {
  const { deps } = context;
  const step = { config: { portalAction: "own-account", enrolmentStep: true } as const };

  async function sendTwoFactor(request: FastifyRequest, reply: FastifyReply, status: number, problem?: string) {
    const session = request.portal.session!;
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang].twoFactor;
    const { secret, enabled } = await readTotpSecret(deps, session.userId);
    const shown = status === 200 ? takeShownOnce(deps, request, reply) : undefined;
    const codes = shown?.kind === "recovery-codes" ? shown.codes : undefined;
    const done = formField(request.query, "done");
    const required = session.twoFactorRequired && !enabled;
    // The key is shown while enrolment waits for its first code; the QR code carries the same.
    const qr =
      !enabled && secret !== null
        ? await QRCode.toString(totpUri(secret, session.email, `Paylink ${session.merchantName}`), {
            type: "svg",
            errorCorrectionLevel: "M",
            margin: 2,
          })
        : null;
    const problemAlert = problem ? (
      <div class="alert" role="alert">
        {problem}
      </div>
    ) : null;
    return sendPortalPage(reply, status, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={m.title} section="account">
        <h1>{m.title}</h1>
        {required ? (
          <div class="alert info" role="status">
            {m.required}
          </div>
        ) : null}
        {done === "disabled" && !enabled ? (
          <div class="alert ok" role="status">
            {m.disabled}
          </div>
        ) : null}
        {codes ? (
          <section class="alert ok" aria-labelledby="recovery-title" data-recovery-codes>
            <h2 id="recovery-title">{m.recoveryTitle}</h2>
            <p>{m.recoveryText}</p>
            <ul class="mono">
              {codes.map((code) => (
                <li key={code}>{code}</li>
              ))}
            </ul>
          </section>
        ) : done === "enabled" && enabled ? (
          <div class="alert info" role="status">
            {m.recoveryShownOnce}
          </div>
        ) : null}
        {enabled ? (
          <section class="card narrow" aria-labelledby="disable-title">
            <h2 id="disable-title">{m.disableTitle}</h2>
            {session.twoFactorRequired ? (
              <p>{m.requiredNoDisable}</p>
            ) : (
              <>
                <p class="muted">{m.disableText}</p>
                {problemAlert}
                <form method="post" action="/portal/account/two-factor/disable">
                  <Csrf token={session.csrfToken} />
                  <div class="field">
                    <label for="disable-code">{PORTAL_MESSAGES[lang].signInCode.code}</label>
                    <input id="disable-code" name="code" autocomplete="one-time-code" required maxlength={40} />
                  </div>
                  <button type="submit" class="danger">
                    {m.disable}
                  </button>
                </form>
              </>
            )}
          </section>
        ) : qr !== null && secret !== null ? (
          <section class="card narrow" aria-labelledby="enrol-title">
            <h2 id="enrol-title">{m.scan}</h2>
            {/* The SVG is the qrcode library's own drawing of our otpauth address: squares only, no text. */}
            <div class="qr" role="img" aria-label={m.qrAlt} dangerouslySetInnerHTML={{ __html: qr }} />
            <p>
              {`${m.secret}: `}
              <code class="mono" data-totp-secret>
                {secret.match(/.{1,4}/g)!.join(" ")}
              </code>
            </p>
            {problemAlert}
            <form method="post" action="/portal/account/two-factor/confirm">
              <Csrf token={session.csrfToken} />
              <div class="field">
                <label for="confirm-code">{m.code}</label>
                <input id="confirm-code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength={10} />
              </div>
              <button type="submit">{m.confirm}</button>
            </form>
          </section>
        ) : (
          <section class="card narrow">
            <p>{m.intro}</p>
            <form method="post" action="/portal/account/two-factor/start">
              <Csrf token={session.csrfToken} />
              <button type="submit">{m.start}</button>
            </form>
          </section>
        )}
      </Layout>
    ));
  }

  app.get("/account/two-factor", step, async (request, reply) => sendTwoFactor(request, reply, 200));

  app.post("/account/two-factor/start", step, async (request, reply) => {
    await startTwoFactorEnrolment(deps, request.portal.session!.userId);
    return reply.redirect("/portal/account/two-factor", 303);
  });

  app.post("/account/two-factor/confirm", step, async (request, reply) => {
    const { userId } = request.portal.session!;
    const m = PORTAL_MESSAGES[request.portal.lang].twoFactor;
    let codes: string[] | null = null;
    const code = formField(request.body, "code").slice(0, 100);
    const { wait } = await brakedAttempt(context, request, secondFactorSubject(userId), async () => {
      codes = await confirmTwoFactor(deps, userId, code, { merchantId: request.portal.session!.merchantId, actor: portalActor(request) });
      return codes !== null;
    });
    if (wait > 0) return sendTwoFactor(request, reply.header("retry-after", String(wait)), 429, m.braked(Math.ceil(wait / 60)));
    if (codes === null) return sendTwoFactor(request, reply, 400, m.wrongCode);
    request.log.info({ userId }, "portal two-factor sign-in turned on");
    showOnce(deps, request, reply, { kind: "recovery-codes", codes });
    return reply.redirect("/portal/account/two-factor?done=enabled", 303);
  });

  app.post("/account/two-factor/disable", step, async (request, reply) => {
    const session = request.portal.session!;
    const m = PORTAL_MESSAGES[request.portal.lang].twoFactor;
    if (session.twoFactorRequired) return sendTwoFactor(request, reply, 403, m.requiredNoDisable);
    const code = formField(request.body, "code").slice(0, 100);
    const { wait, ok } = await brakedAttempt(context, request, secondFactorSubject(session.userId), () =>
      disableTwoFactor(deps, session.userId, code, { merchantId: session.merchantId, actor: portalActor(request) }),
    );
    if (wait > 0) return sendTwoFactor(request, reply.header("retry-after", String(wait)), 429, m.braked(Math.ceil(wait / 60)));
    if (!ok) return sendTwoFactor(request, reply, 400, m.wrongCode);
    request.log.info({ userId: session.userId }, "portal two-factor sign-in turned off");
    return reply.redirect("/portal/account/two-factor?done=disabled", 303);
  });
}
