// What one audit-log entry says (docs/portal.md#audit-log): the action's name, the object it
// touched, and a few details. The action names are a closed list, so the portal's filter and
// translations and the admin API's documentation cover every one.
import type { Actor } from "./actor.ts";

export const AUDIT_ACTIONS = [
  "sign-in",
  "sign-in.failed",
  "link.create",
  "link.update",
  "link.disable",
  "session.create",
  "payment.refund",
  "payment.reverse",
  "payment.capture",
  "payment.adjust",
  "token.charge",
  "token.disable",
  "api-key.create",
  "api-key.revoke",
  "webhook.create",
  "webhook.update",
  "webhook.delete",
  "webhook.enable",
  "webhook.disable",
  "webhook.secret-reveal",
  "webhook.secret-rotate",
  "theme.create",
  "theme.update",
  "user.create",
  "user.update",
  "user.role-change",
  "user.remove",
  "user.invite",
  "user.invite-resend",
  "user.invite-revoke",
  "user.invite-accept",
  "user.password-reset-request",
  "user.password-reset",
  "user.password-change",
  "user.two-factor-enable",
  "user.two-factor-disable",
  "user.sessions-end",
  "merchant.two-factor-rule",
  "merchant.refund-limit",
  "terminal.processor-change",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditObjectType =
  | "payment-link"
  | "session"
  | "payment"
  | "token"
  | "api-key"
  | "webhook-endpoint"
  | "theme"
  | "user"
  | "invitation"
  | "merchant"
  | "terminal";

/** Small facts beside the entry: amounts, currencies, changed field names. Never a secret or card data. */
export type AuditDetails = Record<string, string | number | boolean | null | string[]>;

export interface AuditEvent {
  merchantId: string;
  actor: Actor;
  action: AuditAction;
  object: { type: AuditObjectType; id: string };
  details?: AuditDetails;
}

export function isAuditAction(value: string): value is AuditAction {
  return (AUDIT_ACTIONS as readonly string[]).includes(value);
}

/** The names of the fields an update request sets (its values stay out of the log: they may be long or personal). */
export function changedFields(request: object, except: readonly string[] = []): string[] {
  return Object.entries(request)
    .filter(([name, value]) => value !== undefined && !except.includes(name))
    .map(([name]) => name)
    .sort();
}

/** A URL's host only: a webhook URL's path or query may carry the receiver's own secret. */
export function urlHost(url: string): string {
  return URL.canParse(url) ? new URL(url).host : "";
}
