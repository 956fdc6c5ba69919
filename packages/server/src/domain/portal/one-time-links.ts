// The portal's one-time links (docs/portal.md#invitations): an invitation to join a merchant and a
// password reset. Pure: a link's recorded facts and the time in, whether it may still be used out.

export const INVITATION_VALID_HOURS = 72;
export const RESET_VALID_HOURS = 1;

export type LinkState = "usable" | "used" | "expired" | "revoked";

export interface LinkFacts {
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt?: Date | null;
}

/** What a link is at `now`: used first (it was good once), then revoked, then expired. */
export function linkState(link: LinkFacts, now: Date): LinkState {
  if (link.usedAt !== null) return "used";
  if (link.revokedAt) return "revoked";
  return now.getTime() >= link.expiresAt.getTime() ? "expired" : "usable";
}

export const expiresAfter = (now: Date, hours: number) => new Date(now.getTime() + hours * 3_600_000);

/** An address worth sending an invitation to: one @, something either side, no spaces; the mail server judges the rest. */
export function isInvitableEmail(email: string): boolean {
  return email.length <= 320 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email);
}
