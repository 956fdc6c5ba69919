/** @jsxRuntime automatic @jsxImportSource preact */
// /portal/account/notifications (docs/portal.md#notifications): the signed-in user's own e-mail
// settings: the "you got paid" opt-in and the language of their mail. A POST answers with a 303
// back to the page, which then says it was saved.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { findNotificationSettings, type NotificationSettings, saveNotificationSettings } from "../db/notification-settings-repository.ts";
import { isLang } from "../web/i18n.ts";
import type { PortalContext } from "./deps.ts";
import { NOTIFICATION_MESSAGES } from "./notifications-i18n.ts";
import { frameOf, sendPortalNotFound, sendPortalPage } from "./render.tsx";
import { formField } from "./request-state.ts";
import { Problem } from "./views/form-bits.tsx";
import { Csrf, Layout } from "./views/layout.tsx";

const PATH = "/portal/account/notifications";

export function notificationsRoutes(app: FastifyInstance, { deps }: PortalContext): void {
  function sendSettings(request: FastifyRequest, reply: FastifyReply, status: number, settings: NotificationSettings, problem?: string) {
    const session = request.portal.session!;
    const lang = request.portal.lang;
    const m = NOTIFICATION_MESSAGES[lang];
    const saved = status === 200 && formField(request.query, "saved") === "1";
    return sendPortalPage(reply, status, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={m.title}>
        <h1>{m.title}</h1>
        {saved ? (
          <div class="alert ok" role="status">
            {m.saved}
          </div>
        ) : null}
        <form class="card" method="post" action={PATH}>
          <Csrf token={session.csrfToken} />
          <p class="muted">{m.intro}</p>
          <div class="field">
            <label>
              <input type="checkbox" name="notifyPayments" value="1" checked={settings.notifyPayments} aria-describedby="notify-hint" />{" "}
              {m.payments}
            </label>
            <span class="hint" id="notify-hint">
              {m.paymentsHint}
            </span>
          </div>
          <fieldset class="field" aria-describedby={problem ? "mailLanguage-error" : undefined}>
            <legend class="label">{m.language}</legend>
            {(["is", "en"] as const).map((value) => (
              <label key={value} lang={value}>
                <input type="radio" name="mailLanguage" value={value} checked={settings.mailLanguage === value} /> {m[value]}
              </label>
            ))}
            <Problem id="mailLanguage" problems={new Map(problem ? [["mailLanguage", problem]] : [])} />
          </fieldset>
          <p class="muted">{m.alwaysSent}</p>
          <button type="submit">{m.save}</button>
        </form>
      </Layout>
    ));
  }

  app.get("/account/notifications", async (request, reply) => {
    const session = request.portal.session!;
    const settings = await findNotificationSettings(deps.db, session.userId);
    if (!settings) return sendPortalNotFound(request, reply);
    return sendSettings(request, reply, 200, settings);
  });

  // Every role has its own e-mail settings.
  app.post("/account/notifications", { config: { portalAction: "own-account" } }, async (request, reply) => {
    const session = request.portal.session!;
    const notifyPayments = formField(request.body, "notifyPayments") === "1";
    const mailLanguage = formField(request.body, "mailLanguage");
    if (!isLang(mailLanguage)) {
      const m = NOTIFICATION_MESSAGES[request.portal.lang];
      return sendSettings(request, reply, 400, { notifyPayments, mailLanguage: request.portal.lang }, m.badLanguage);
    }
    await saveNotificationSettings(deps.db, session, { notifyPayments, mailLanguage });
    return reply.redirect(`${PATH}?saved=1`, 303);
  });
}
