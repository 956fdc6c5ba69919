/** @jsxRuntime automatic @jsxImportSource preact */
// Invitations (docs/portal.md#invitations): the users page's section (invite by e-mail with a role,
// the open invitations with "send again" and "revoke", which asks first) and the page the e-mailed
// link opens, where the invitee chooses a password and is signed in. The link's token is in the
// path, so those two routes log only warnings: Fastify's request line would otherwise carry it.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import Type from "typebox";
import type { Invitation } from "../db/one-time-links-repository.ts";
import { createPortalSession, type PortalSession } from "../db/portal-sessions-repository.ts";
import { linkState } from "../domain/portal/one-time-links.ts";
import { assignableRoles, isRole, mayManageUser } from "../domain/portal/roles.ts";
import {
  acceptInvitation,
  type InvitingUser,
  invitationOfLink,
  inviteUser,
  openInvitation,
  resendInvitation,
  revokeUserInvitation,
} from "../services/invitations.ts";
import { formatDateTime, type Lang } from "../web/i18n.ts";
import { portalCookie, SESSION_COOKIE } from "./cookies.ts";
import type { PortalContext } from "./deps.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { frameOf, sendMessagePage, sendPortalNotFound, sendPortalPage } from "./render.tsx";
import { formField } from "./request-state.ts";
import { IdParams } from "./schemas.ts";
import { publicFormOk, publicFormToken, sessionOrigin } from "./sign-in.tsx";
import { sendConfirmPage } from "./views/confirm.tsx";
import { Csrf, Layout } from "./views/layout.tsx";
import { NewPasswordField, sendLinkGonePage } from "./views/one-time-link.tsx";

/** The invite form as last posted, with what was wrong with it. */
export interface InviteForm {
  email: string;
  role: string;
  error: "badEmail" | "alreadyUser" | "alreadyInvited";
}

const TokenParams = Type.Object({ token: Type.String({ pattern: "^[A-Za-z0-9_-]{43}$" }) });

const inviterOf = (session: PortalSession): InvitingUser => ({
  merchantId: session.merchantId,
  merchantName: session.merchantName,
  userId: session.userId,
  email: session.email,
  role: session.role,
});

/** The users page's invitations: the form and the open ones (listOpenInvitations). */
export function InvitationsSection(props: {
  now: Date;
  session: PortalSession;
  lang: Lang;
  form: InviteForm | undefined;
  invitations: Invitation[];
}) {
  const { session, lang, form, invitations, now } = props;
  const m = PORTAL_MESSAGES[lang];
  const u = m.users;
  const chosenRole = form && isRole(form.role) ? form.role : "viewer";
  return (
    <section class="card" aria-labelledby="invitations-title" data-invitations>
      <h2 id="invitations-title">{u.invitationsTitle}</h2>
      <p class="muted">{u.invitationsText}</p>
      <form method="post" action="/portal/users/invitations" class="row" novalidate>
        <Csrf token={session.csrfToken} />
        <div class="field">
          <label for="invite-email">{u.inviteEmail}</label>
          <input
            id="invite-email"
            name="email"
            type="email"
            autocomplete="off"
            required
            value={form?.email ?? ""}
            aria-invalid={form ? "true" : undefined}
            aria-describedby={form ? "invite-email-error" : undefined}
          />
          {form ? (
            <span class="error" id="invite-email-error">
              {u[form.error]}
            </span>
          ) : null}
        </div>
        <div class="field">
          <label for="invite-role">{u.inviteRole}</label>
          <select id="invite-role" name="role">
            {assignableRoles(session.role).map((role) => (
              <option key={role} value={role} selected={role === chosenRole}>
                {m.roles[role]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <button type="submit">{u.invite}</button>
        </div>
      </form>
      {invitations.length === 0 ? (
        <p>{u.noInvitations}</p>
      ) : (
        <ul class="invitations">
          {invitations.map((invitation) => {
            const expired = linkState(invitation, now) === "expired";
            const manageable = mayManageUser(session.role, invitation.role, null);
            return (
              <li key={invitation.invitationId} data-invitation={invitation.email}>
                <div>
                  <strong>{invitation.email}</strong> · {m.roles[invitation.role]}
                  <span class="hint">
                    {u.invitedBy} {invitation.invitedBy} · {u.expires} <span data-when>{formatDateTime(invitation.expiresAt, lang)}</span>{" "}
                    {expired ? <span class="pill warn">{u.expired}</span> : null}
                  </span>
                </div>
                {manageable ? (
                  <div class="row">
                    <form method="post" action={`/portal/users/invitations/${invitation.invitationId}/resend`}>
                      <Csrf token={session.csrfToken} />
                      <button type="submit" class="secondary" aria-label={u.resendLabel(invitation.email)}>
                        {u.resend}
                      </button>
                    </form>
                    <a
                      class="button danger"
                      href={`/portal/users/invitations/${invitation.invitationId}/revoke`}
                      aria-label={u.revokeLabel(invitation.email)}
                    >
                      {u.revoke}
                    </a>
                  </div>
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

/**
 * The invitation routes; `sendUsers` shows the users page again (a refused invitation shows its
 * form there with the field's error, with `status`).
 */
export function invitationRoutes(
  fastify: FastifyInstance,
  context: PortalContext,
  sendUsers: (request: FastifyRequest, reply: FastifyReply, status: number, form: InviteForm) => Promise<unknown>,
): void {
  const { deps } = context;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const manage = { config: { portalAction: "users.manage" as const } };
  const manageOne = { ...manage, schema: { params: IdParams }, attachValidation: true };

  app.post("/users/invitations", manage, async (request, reply) => {
    const session = request.portal.session!;
    const email = formField(request.body, "email").trim().slice(0, 320);
    const role = formField(request.body, "role");
    if (!isRole(role)) return sendPortalNotFound(request, reply);
    const outcome = await inviteUser(deps, inviterOf(session), { email, role, language: request.portal.lang, address: request.ip });
    if (outcome === "notAllowed") return sendMessagePage(request, reply, 403, ...notAllowed(request));
    if (outcome !== "invited") return sendUsers(request, reply, outcome === "badEmail" ? 400 : 409, { email, role, error: outcome });
    return reply.redirect("/portal/users?done=invited", 303);
  });

  app.post("/users/invitations/:id/resend", manageOne, async (request, reply) => {
    if (request.validationError) return sendPortalNotFound(request, reply);
    const outcome = await resendInvitation(deps, inviterOf(request.portal.session!), request.params.id, request.ip);
    if (outcome === "notFound") return sendPortalNotFound(request, reply);
    if (outcome === "notAllowed") return sendMessagePage(request, reply, 403, ...notAllowed(request));
    return reply.redirect("/portal/users?done=resent", 303);
  });

  app.get("/users/invitations/:id/revoke", manageOne, async (request, reply) => {
    const found = request.validationError
      ? "notFound"
      : await openInvitation(deps.db, inviterOf(request.portal.session!), request.params.id);
    if (found === "notFound") return sendPortalNotFound(request, reply);
    if (found === "notAllowed") return sendMessagePage(request, reply, 403, ...notAllowed(request));
    const u = PORTAL_MESSAGES[request.portal.lang].users;
    return sendConfirmPage(request, reply, {
      question: u.confirmRevoke(found.email),
      consequence: u.confirmRevokeText,
      action: `/portal/users/invitations/${found.invitationId}/revoke`,
      button: u.revoke,
      back: "/portal/users",
      section: "users",
    });
  });

  app.post("/users/invitations/:id/revoke", manageOne, async (request, reply) => {
    if (request.validationError) return sendPortalNotFound(request, reply);
    const outcome = await revokeUserInvitation(deps, inviterOf(request.portal.session!), request.params.id, request.ip);
    if (outcome === "notFound") return sendPortalNotFound(request, reply);
    if (outcome === "notAllowed") return sendMessagePage(request, reply, 403, ...notAllowed(request));
    return reply.redirect("/portal/users?done=revoked", 303);
  });

  const open = { config: { portalPublic: true }, logLevel: "warn" as const, schema: { params: TokenParams }, attachValidation: true };

  async function sendAcceptPage(request: FastifyRequest, reply: FastifyReply, token: string, status: number, problem?: string) {
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang];
    const found = await invitationOfLink(deps, token);
    if (typeof found === "string") {
      return sendLinkGonePage(request, reply, {
        state: found,
        title: m.invitation.goneTitle,
        text: m.invitation[found],
        next: { href: "/portal/sign-in", label: m.invitation.toSignIn },
      });
    }
    const formToken = publicFormToken(request, reply, context);
    return sendPortalPage(reply, status, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={m.invitation.title(found.merchantName)}>
        <div class="card narrow">
          <h1>{m.invitation.title(found.merchantName)}</h1>
          <p>{m.invitation.intro(found.invitedBy, m.roles[found.role])}</p>
          {problem ? (
            <div class="alert" role="alert">
              {problem}
            </div>
          ) : null}
          <form method="post" action={`/portal/invitations/${token}`}>
            <input type="hidden" name="csrf" value={formToken} />
            <div class="field">
              <label for="email">{m.invitation.email}</label>
              <input id="email" name="username" type="email" autocomplete="username" value={found.email} readonly />
            </div>
            <NewPasswordField label={m.invitation.password} hint={m.invitation.passwordHint} />
            <button type="submit">{m.invitation.button}</button>
          </form>
        </div>
      </Layout>
    ));
  }

  app.get("/invitations/:token", open, async (request, reply) => {
    if (request.validationError) return sendAcceptPage(request, reply, "-", 404);
    return sendAcceptPage(request, reply, request.params.token, 200);
  });

  app.post("/invitations/:token", open, async (request, reply) => {
    if (request.validationError) return sendAcceptPage(request, reply, "-", 404);
    const { token } = request.params;
    const m = PORTAL_MESSAGES[request.portal.lang];
    if (!publicFormOk(request, context)) return sendAcceptPage(request, reply, token, 403, m.signIn.expiredForm);
    const result = await acceptInvitation(deps, token, formField(request.body, "password"), request.ip);
    if (result.outcome === "tooShort") return sendAcceptPage(request, reply, token, 400, m.invitation.shortPassword);
    if (result.outcome === "taken") return sendMessagePage(request, reply, 409, m.invitation.goneTitle, m.invitation.taken);
    if (result.outcome !== "accepted") return sendAcceptPage(request, reply, token, 410);
    // Signed in at once: a fresh session, as after a sign-in (any earlier one of this browser stays its own).
    const sessionToken = await createPortalSession(deps.db, result.user, sessionOrigin(request));
    reply.setCookie(SESSION_COOKIE, sessionToken, portalCookie(deps.publicBaseUrl));
    return reply.redirect("/portal/overview", 303);
  });
}

function notAllowed(request: FastifyRequest): [string, string] {
  const m = PORTAL_MESSAGES[request.portal.lang].errors;
  return [m.notAllowedTitle, m.notAllowedText];
}
