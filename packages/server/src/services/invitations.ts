// Invitations to a merchant's portal (docs/portal.md#invitations): an owner or admin invites an
// address with a role; the mail carries a one-time link valid 72 hours; whoever opens it in time
// sets a password and becomes that user. Sending again gives a new link (the old one dies);
// revoking kills it. Each step is recorded in the audit log in the transaction that makes it.
import type { Transaction } from "kysely";
import type { Database } from "../db/connect.ts";
import { createPortalUser } from "../db/merchants-repository.ts";
import {
  findInvitationByToken,
  findMerchantInvitation,
  findOpenInvitationTo,
  type Invitation,
  insertInvitation,
  renewInvitation,
  revokeInvitation,
  takeInvitation,
} from "../db/one-time-links-repository.ts";
import { listMerchantUsers } from "../db/portal-users-repository.ts";
import type { DB } from "../db/schema.ts";
import { isUniqueViolation } from "../db/unique-violation.ts";
import { type Actor, userActor } from "../domain/audit/actor.ts";
import type { AuditDetails } from "../domain/audit/entry.ts";
import { expiresAfter, INVITATION_VALID_HOURS, isInvitableEmail, type LinkState, linkState } from "../domain/portal/one-time-links.ts";
import { mayManageUser, type Role } from "../domain/portal/roles.ts";
import { newInvitationId, newLinkToken } from "../ids.ts";
import type { SecretKeyring } from "../security/keyring.ts";
import { hashPassword } from "../security/passwords.ts";
import type { Lang } from "../web/i18n.ts";
import { recordAudit } from "./audit.ts";
import { acceptablePassword } from "./change-password.ts";
import { notifyMailWorker, queueInvitationMail } from "./queue-account-mail.ts";

export interface InvitingUser {
  merchantId: string;
  merchantName: string;
  userId: string;
  email: string;
  role: Role;
}

export interface InvitationDeps {
  db: Database;
  keyring: SecretKeyring;
  publicBaseUrl: string;
  now: () => Date;
}

export type InviteOutcome = "invited" | "badEmail" | "notAllowed" | "alreadyUser" | "alreadyInvited";

export const invitationUrl = (publicBaseUrl: string, token: string) => `${publicBaseUrl}/portal/invitations/${token}`;

export async function inviteUser(
  deps: InvitationDeps,
  inviter: InvitingUser,
  input: { email: string; role: Role; language: Lang; address: string },
): Promise<InviteOutcome> {
  const email = input.email.trim();
  if (!isInvitableEmail(email)) return "badEmail";
  if (!mayManageUser(inviter.role, "viewer", input.role)) return "notAllowed";
  const users = await listMerchantUsers(deps.db, inviter.merchantId);
  if (users.some((user) => user.email.toLowerCase() === email.toLowerCase())) return "alreadyUser";
  if (await findOpenInvitationTo(deps.db, inviter.merchantId, email)) return "alreadyInvited";
  const now = deps.now();
  const token = newLinkToken();
  const invitationId = newInvitationId();
  const expiresAt = expiresAfter(now, INVITATION_VALID_HOURS);
  await deps.db.transaction().execute(async (trx) => {
    await insertInvitation(
      trx,
      {
        invitationId,
        merchantId: inviter.merchantId,
        email,
        role: input.role,
        language: input.language,
        invitedBy: inviter.email,
        expiresAt,
      },
      token,
    );
    await mailAndRecord(
      trx,
      deps,
      inviter,
      { invitationId, email, language: input.language, token, expiresAt, now },
      {
        action: "user.invite",
        address: input.address,
        details: { email, role: input.role },
      },
    );
  });
  notifyMailWorker();
  return "invited";
}

export type ResendOutcome = "sent" | "notFound" | "notAllowed";

/** A new link, valid 72 hours from now, to the same address; the one sent before stops working. */
export async function resendInvitation(
  deps: InvitationDeps,
  inviter: InvitingUser,
  invitationId: string,
  address: string,
): Promise<ResendOutcome> {
  const found = await openInvitation(deps.db, inviter, invitationId);
  if (typeof found === "string") return found;
  const now = deps.now();
  const token = newLinkToken();
  const expiresAt = expiresAfter(now, INVITATION_VALID_HOURS);
  const renewed = await deps.db.transaction().execute(async (trx) => {
    if (!(await renewInvitation(trx, inviter.merchantId, invitationId, token, expiresAt))) return false;
    await mailAndRecord(
      trx,
      deps,
      inviter,
      { invitationId, email: found.email, language: found.language, token, expiresAt, now },
      {
        action: "user.invite-resend",
        address,
        details: { email: found.email },
      },
    );
    return true;
  });
  if (!renewed) return "notFound";
  notifyMailWorker();
  return "sent";
}

/** Queues the invitation's mail with its link and records what was done, in the caller's transaction. */
async function mailAndRecord(
  trx: Transaction<DB>,
  deps: InvitationDeps,
  inviter: InvitingUser,
  mail: { invitationId: string; email: string; language: Lang; token: string; expiresAt: Date; now: Date },
  audit: { action: "user.invite" | "user.invite-resend"; address: string; details: AuditDetails },
): Promise<void> {
  await queueInvitationMail(trx, deps.keyring, {
    merchantId: inviter.merchantId,
    merchantName: inviter.merchantName,
    inviter: inviter.email,
    email: mail.email,
    language: mail.language,
    link: { url: invitationUrl(deps.publicBaseUrl, mail.token), expiresAt: mail.expiresAt },
    now: mail.now,
  });
  await recordAudit(trx, {
    merchantId: inviter.merchantId,
    actor: userActor(inviter, audit.address),
    action: audit.action,
    object: { type: "invitation", id: mail.invitationId },
    details: audit.details,
  });
}

export type RevokeOutcome = "revoked" | "notFound" | "notAllowed";

export async function revokeUserInvitation(
  deps: InvitationDeps,
  inviter: InvitingUser,
  invitationId: string,
  address: string,
): Promise<RevokeOutcome> {
  const found = await openInvitation(deps.db, inviter, invitationId);
  if (typeof found === "string") return found;
  return deps.db.transaction().execute(async (trx) => {
    if (!(await revokeInvitation(trx, inviter.merchantId, invitationId, deps.now()))) return "notFound";
    await recordAudit(trx, {
      merchantId: inviter.merchantId,
      actor: userActor(inviter, address),
      action: "user.invite-revoke",
      object: { type: "invitation", id: invitationId },
      details: { email: found.email },
    });
    return "revoked";
  });
}

/** The merchant's open invitation that this user may manage (admins do not manage invited owners). */
export async function openInvitation(
  db: Database,
  inviter: InvitingUser,
  invitationId: string,
): Promise<Invitation | "notFound" | "notAllowed"> {
  const found = await findMerchantInvitation(db, inviter.merchantId, invitationId);
  if (!found || found.usedAt !== null || found.revokedAt !== null) return "notFound";
  return mayManageUser(inviter.role, found.role, null) ? found : "notAllowed";
}

/** What the invitation link leads to: the invitation while usable, otherwise why not. */
export async function invitationOfLink(
  deps: Pick<InvitationDeps, "db" | "now">,
  token: string,
): Promise<(Invitation & { merchantName: string }) | Exclude<LinkState, "usable"> | "unknown"> {
  const found = await findInvitationByToken(deps.db, token);
  if (!found) return "unknown";
  const state = linkState(found, deps.now());
  return state === "usable" ? found : state;
}

export type AcceptOutcome =
  | { outcome: "accepted"; user: { userId: string; merchantId: string; email: string } }
  | { outcome: Exclude<LinkState, "usable"> | "unknown" | "tooShort" | "taken" };

/** The invitee sets a password and becomes the merchant's user with the invited role, once. */
export async function acceptInvitation(
  deps: Pick<InvitationDeps, "db" | "now">,
  token: string,
  password: string,
  address: string,
): Promise<AcceptOutcome> {
  const invitation = await invitationOfLink(deps, token);
  if (typeof invitation === "string") return { outcome: invitation };
  if (!acceptablePassword(password)) return { outcome: "tooShort" };
  const passwordHash = await hashPassword(password);
  try {
    return await deps.db.transaction().execute(async (trx): Promise<AcceptOutcome> => {
      // Of two requests with the link at once, the second finds it used.
      if (!(await takeInvitation(trx, invitation.invitationId, deps.now()))) return { outcome: "used" };
      const { userId } = await createPortalUser(trx, invitation.merchantId, invitation.email, passwordHash, invitation.role);
      const user = { userId, merchantId: invitation.merchantId, email: invitation.email };
      const actor: Actor = userActor(user, address);
      await recordAudit(trx, {
        merchantId: invitation.merchantId,
        actor,
        action: "user.invite-accept",
        object: { type: "user", id: userId },
        details: { role: invitation.role, invitation: invitation.invitationId },
      });
      return { outcome: "accepted", user };
    });
  } catch (error) {
    // The address became a portal user (of this or another merchant) since it was invited.
    if (isUniqueViolation(error)) return { outcome: "taken" };
    throw error;
  }
}
