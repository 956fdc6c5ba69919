// Who may do what in the portal (docs/portal.md#users-and-roles). Pure: a role and an action in,
// yes or no out. Every portal route that changes something names its action, and the portal's
// guard asks this rule before the handler runs; pages ask it too, to show only what may be used.

export const ROLES = ["owner", "admin", "developer", "support", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: unknown): value is Role => typeof value === "string" && (ROLES as readonly string[]).includes(value);

/** Everything the portal lets a person change, by the part of the merchant it touches. */
export type PortalAction =
  /** Create, edit, disable and enable payment links. */
  | "links.manage"
  /** Refund a payment (support only up to the merchant's limit: refundWithinLimit). */
  | "payments.refund"
  /** Reverse, cancel and capture: money moves in ways a support person does not decide. */
  | "payments.manage"
  /** API keys, webhook endpoints (and their secrets). */
  | "developers.manage"
  | "themes.manage"
  /** The users page: list, change roles, remove (which users: mayManageUser). */
  | "users.manage"
  /** The merchant's security settings: two-factor for everyone, support's refund limit. */
  | "security.manage"
  /**
   * Which processor takes a terminal's money, with its credentials: where the merchant's money goes
   * is the owner's decision alone.
   */
  | "processors.manage";

const ALLOWED: Record<PortalAction, readonly Role[]> = {
  "links.manage": ["owner", "admin"],
  "payments.refund": ["owner", "admin", "support"],
  "payments.manage": ["owner", "admin"],
  "developers.manage": ["owner", "admin", "developer"],
  "themes.manage": ["owner", "admin", "developer"],
  "users.manage": ["owner", "admin"],
  "security.manage": ["owner"],
  "processors.manage": ["owner"],
};

export function may(role: Role, action: PortalAction): boolean {
  return ALLOWED[action].includes(role);
}

/** The roles that may do `action`: those told by e-mail about what it manages (a failing endpoint). */
export function rolesThatMay(action: PortalAction): readonly Role[] {
  return ALLOWED[action];
}

/**
 * Whether `actor` may change a user who has role `target` to `next` (null: remove them). Owners
 * manage everyone; admins manage everyone but owners, and make no one an owner.
 */
export function mayManageUser(actor: Role, target: Role, next: Role | null): boolean {
  if (!may(actor, "users.manage")) return false;
  if (actor === "owner") return true;
  return target !== "owner" && next !== "owner";
}

/** The roles `actor` may give (for the role picker). */
export function assignableRoles(actor: Role): Role[] {
  return ROLES.filter((role) => mayManageUser(actor, "viewer", role));
}

/**
 * Whether a change leaves the merchant an owner: `owners` is how many there are now, and the user
 * changed has `target` and gets `next` (null: removed).
 */
export function leavesAnOwner(owners: number, target: Role, next: Role | null): boolean {
  return target !== "owner" || next === "owner" || owners > 1;
}

/**
 * Whether a refund of `amount` (minor units) is within what `role` may refund; `limit` is the
 * merchant's support limit in the refund's currency (null: none set, so support may not refund).
 */
export function refundWithinLimit(role: Role, amount: number, limit: number | null): boolean {
  if (!may(role, "payments.refund")) return false;
  if (role !== "support") return true;
  return limit !== null && amount <= limit;
}
