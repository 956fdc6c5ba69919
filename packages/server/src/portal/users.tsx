/** @jsxRuntime automatic @jsxImportSource preact */
// GET /portal/users and its forms (docs/portal.md#users-and-roles): the merchant's users with their
// role and two-factor state; owners (and admins, for everyone but owners) change roles and remove
// users, each asking first; owners set the merchant's security settings (two-factor for everyone,
// support's refund limit per currency); and invitations by e-mail (invitations.tsx).
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { listOpenInvitations } from "../db/one-time-links-repository.ts";
import {
  findMerchantUser,
  listMerchantUsers,
  listRefundLimits,
  setRefundLimit,
  setRequireTwoFactor,
} from "../db/portal-users-repository.ts";
import { isKnownCurrency } from "../domain/money/currencies.ts";
import { parseDisplayAmount } from "../domain/money/display-amount.ts";
import { assignableRoles, isRole, may, mayManageUser, type Role } from "../domain/portal/roles.ts";
import { changeAndRecord } from "../services/audit.ts";
import { changeUserRole } from "../services/change-user-role.ts";
import { removePortalUser } from "../services/remove-portal-user.ts";
import { formatDateTime, formatMoney } from "../web/i18n.ts";
import type { PortalContext } from "./deps.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { InvitationsSection, type InviteForm, invitationRoutes } from "./invitations.tsx";
import { frameOf, sendPortalNotFound, sendPortalPage } from "./render.tsx";
import { formField, portalActor } from "./request-state.ts";
import { IdParams } from "./schemas.ts";
import { sendConfirmPage } from "./views/confirm.tsx";
import { Csrf, Layout } from "./views/layout.tsx";
import { TableHead, TableWrap } from "./views/table.tsx";

type Problem = "sameRole" | "lastOwner" | "notYours" | "removeSelf" | "badCurrency" | "notAmount";
const PROBLEM_STATUS: Record<Problem, number> = {
  sameRole: 409,
  lastOwner: 409,
  notYours: 403,
  removeSelf: 409,
  badCurrency: 400,
  notAmount: 400,
};

export function usersRoutes(fastify: FastifyInstance, context: PortalContext): void {
  const { deps } = context;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const manage = { config: { portalAction: "users.manage" as const } };
  const manageOne = { ...manage, schema: { params: IdParams }, attachValidation: true };
  const security = { config: { portalAction: "security.manage" as const } };

  async function sendUsers(request: FastifyRequest, reply: FastifyReply, problem?: Problem, invite?: { status: number; form: InviteForm }) {
    const session = request.portal.session!;
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang];
    const u = m.users;
    const isOwner = may(session.role, "security.manage");
    const [users, limits, invitations] = await Promise.all([
      listMerchantUsers(deps.db, session.merchantId),
      listRefundLimits(deps.db, session.merchantId),
      listOpenInvitations(deps.db, session.merchantId),
    ]);
    const notices: Record<string, string> = {
      "role-changed": u.roleChanged,
      removed: u.removed,
      security: u.securitySaved,
      limit: u.limitSaved,
      invited: u.invited,
      resent: u.resent,
      revoked: u.revoked,
    };
    const notice = problem || invite ? undefined : notices[formField(request.query, "done")];
    const problemText = problem ? (problem === "notAmount" ? m.form.problems.notAmount! : u[problem]) : undefined;
    const roles = assignableRoles(session.role);
    const status = problem ? PROBLEM_STATUS[problem] : (invite?.status ?? 200);
    return sendPortalPage(reply, status, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={u.title} section="users">
        <h1>{u.title}</h1>
        <p class="muted">{u.intro}</p>
        {notice ? (
          <div class="alert ok" role="status">
            {notice}
          </div>
        ) : null}
        {problemText ? (
          <div class="alert" role="alert">
            {problemText}
          </div>
        ) : null}
        {/* The table's own scroll region is the named landmark; this card is only its frame. */}
        <div class="card">
          <TableWrap label={u.title}>
            <table data-users class="cards">
              <TableHead columns={[u.email, u.role, u.twoFactor, u.since, { hidden: u.actions }]} />
              <tbody>
                {users.map((user) => {
                  const self = user.userId === session.userId;
                  const manageable = !self && mayManageUser(session.role, user.role, null);
                  return (
                    <tr key={user.userId} data-user={user.email} data-role={user.role}>
                      <td data-label={u.email}>
                        <span>
                          {user.email} {self ? <span class="muted">{u.you}</span> : null}
                        </span>
                      </td>
                      <td data-label={u.role}>
                        <span>{m.roles[user.role]}</span>
                        <span class="hint">{m.roleHints[user.role]}</span>
                      </td>
                      <td data-label={u.twoFactor}>
                        {user.twoFactorEnabled ? <span class="pill ok">{u.on}</span> : <span class="pill">{u.off}</span>}
                      </td>
                      <td data-label={u.since} data-when>
                        <span>{formatDateTime(user.createdAt, lang)}</span>
                      </td>
                      <td class="row-actions">
                        {manageable ? (
                          <div class="row">
                            {/* Changing a role asks first: this form leads to the question (a GET). */}
                            <form method="get" action={`/portal/users/${user.userId}/role`} class="row">
                              <div class="field">
                                <label for={`role-${user.userId}`} class="sr-only">
                                  {u.newRole(user.email)}
                                </label>
                                <select id={`role-${user.userId}`} name="role">
                                  {roles.map((role) => (
                                    <option key={role} value={role} selected={role === user.role}>
                                      {m.roles[role]}
                                    </option>
                                  ))}
                                </select>
                              </div>
                              <div class="field">
                                <button type="submit" class="secondary">
                                  {u.changeRole}
                                </button>
                              </div>
                            </form>
                            <div class="field">
                              <a class="button danger" href={`/portal/users/${user.userId}/remove`} aria-label={u.removeLabel(user.email)}>
                                {u.remove}
                              </a>
                            </div>
                          </div>
                        ) : null}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
        </div>
        <InvitationsSection now={deps.now()} session={session} lang={lang} form={invite?.form} invitations={invitations} />
        {isOwner ? (
          <div class="grid two">
            <section class="card" aria-labelledby="security-title">
              <h2 id="security-title">{u.securityTitle}</h2>
              <form method="post" action="/portal/users/security">
                <Csrf token={session.csrfToken} />
                <div class="field">
                  <label class="check">
                    <input type="checkbox" name="requireTwoFactor" value="1" checked={session.twoFactorRequired} />
                    {` ${u.requireTwoFactor}`}
                  </label>
                  <span class="hint">{u.requireTwoFactorHint}</span>
                </div>
                <button type="submit">{u.saveSecurity}</button>
              </form>
            </section>
            <section class="card" aria-labelledby="limits-title">
              <h2 id="limits-title">{u.limitsTitle}</h2>
              <p class="muted">{u.limitsIntro}</p>
              {limits.length === 0 ? (
                <p>{u.noLimits}</p>
              ) : (
                <ul data-refund-limits>
                  {limits.map((limit) => (
                    <li key={limit.currency}>{formatMoney(limit.amount, limit.currency, lang)}</li>
                  ))}
                </ul>
              )}
              <form method="post" action="/portal/users/refund-limit" class="row">
                <Csrf token={session.csrfToken} />
                <div class="field">
                  <label for="limit-currency">{u.currency}</label>
                  <input id="limit-currency" name="currency" required maxlength={3} autocomplete="off" />
                </div>
                <div class="field">
                  <label for="limit-amount">
                    {u.limit}
                    <span class="hint">{u.limitHint}</span>
                  </label>
                  <input id="limit-amount" name="amount" inputmode="decimal" />
                </div>
                <div class="field">
                  <button type="submit">{u.setLimit}</button>
                </div>
              </form>
            </section>
          </div>
        ) : null}
      </Layout>
    ));
  }

  app.get("/users", manage, async (request, reply) => sendUsers(request, reply));
  invitationRoutes(fastify, context, (request, reply, status, form) => sendUsers(request, reply, undefined, { status, form }));

  /** The merchant's user of this route, with what `next` would mean, or why not; undefined: not found. */
  async function target(request: FastifyRequest, id: string, next: Role | null) {
    const session = request.portal.session!;
    const user = await findMerchantUser(deps.db, session.merchantId, id);
    if (!user) return undefined;
    const problem: Problem | undefined =
      user.userId === session.userId && next === null
        ? "removeSelf"
        : !mayManageUser(session.role, user.role, next)
          ? "notYours"
          : next !== null && user.role === next
            ? "sameRole"
            : undefined;
    return { user, problem };
  }

  app.get("/users/:id/role", manageOne, async (request, reply) => {
    const role = formField(request.query, "role");
    const found = request.validationError || !isRole(role) ? undefined : await target(request, request.params.id, role);
    if (!found || !isRole(role)) return sendPortalNotFound(request, reply);
    if (found.problem) return sendUsers(request, reply, found.problem);
    const m = PORTAL_MESSAGES[request.portal.lang];
    return sendConfirmPage(request, reply, {
      question: m.users.confirmRole(found.user.email, m.roles[role]),
      consequence: m.users.confirmRoleText,
      action: `/portal/users/${found.user.userId}/role`,
      button: m.users.changeRole,
      back: "/portal/users",
      section: "users",
      fields: { role },
    });
  });

  app.post("/users/:id/role", manageOne, async (request, reply) => {
    const session = request.portal.session!;
    const role = formField(request.body, "role");
    if (request.validationError || !isRole(role)) return sendPortalNotFound(request, reply);
    const outcome = await changeUserRole(deps.db, session, request.params.id, role, portalActor(request));
    if (outcome === "notFound") return sendPortalNotFound(request, reply);
    if (outcome !== "changed") return sendUsers(request, reply, outcome === "notAllowed" ? "notYours" : outcome);
    request.log.info({ userId: request.params.id, role }, "portal user role changed");
    return reply.redirect("/portal/users?done=role-changed", 303);
  });

  app.get("/users/:id/remove", manageOne, async (request, reply) => {
    const found = request.validationError ? undefined : await target(request, request.params.id, null);
    if (!found) return sendPortalNotFound(request, reply);
    if (found.problem) return sendUsers(request, reply, found.problem);
    const m = PORTAL_MESSAGES[request.portal.lang].users;
    return sendConfirmPage(request, reply, {
      question: m.confirmRemove(found.user.email),
      consequence: m.confirmRemoveText,
      action: `/portal/users/${found.user.userId}/remove`,
      button: m.remove,
      back: "/portal/users",
      section: "users",
    });
  });

  app.post("/users/:id/remove", manageOne, async (request, reply) => {
    if (request.validationError) return sendPortalNotFound(request, reply);
    const outcome = await removePortalUser(deps.db, request.portal.session!, request.params.id, portalActor(request));
    if (outcome === "notFound") return sendPortalNotFound(request, reply);
    if (outcome !== "removed") {
      return sendUsers(request, reply, outcome === "notAllowed" ? "notYours" : outcome === "self" ? "removeSelf" : outcome);
    }
    request.log.info({ userId: request.params.id }, "portal user removed");
    return reply.redirect("/portal/users?done=removed", 303);
  });

  app.post("/users/security", security, async (request, reply) => {
    const { merchantId } = request.portal.session!;
    const required = formField(request.body, "requireTwoFactor") === "1";
    await changeAndRecord(
      deps.db,
      (trx) => setRequireTwoFactor(trx, merchantId, required),
      () => ({
        merchantId,
        actor: portalActor(request),
        action: "merchant.two-factor-rule",
        object: { type: "merchant", id: merchantId },
        details: { required },
      }),
    );
    return reply.redirect("/portal/users?done=security", 303);
  });

  app.post("/users/refund-limit", security, async (request, reply) => {
    const currency = formField(request.body, "currency").trim().toUpperCase();
    if (!isKnownCurrency(currency)) return sendUsers(request, reply, "badCurrency");
    const typed = formField(request.body, "amount").trim();
    const amount = typed === "" ? null : parseDisplayAmount(typed, currency, request.portal.lang);
    if (typed !== "" && amount === null) return sendUsers(request, reply, "notAmount");
    const { merchantId } = request.portal.session!;
    await changeAndRecord(
      deps.db,
      (trx) => setRefundLimit(trx, merchantId, currency, amount),
      () => ({
        merchantId,
        actor: portalActor(request),
        action: "merchant.refund-limit",
        object: { type: "merchant", id: merchantId },
        details: { currency, amount },
      }),
    );
    return reply.redirect("/portal/users?done=limit", 303);
  });
}
