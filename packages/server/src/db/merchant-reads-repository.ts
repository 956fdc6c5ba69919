// Lists of what hangs off a merchant, for the portal and the admin API: terminals, API keys
// (never a secret: only the prefix), themes, portal users.
import type { Database } from "./connect.ts";
import { type Terminal, THEME_COLUMNS, type Theme, toTheme } from "./merchants-repository.ts";
import { pageTotal, WINDOW_TOTAL } from "./page-total.ts";

export interface ApiKeySummary {
  keyId: string;
  name: string;
  /** The first characters of the key, enough to tell keys apart, never enough to use one. */
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** A merchant's keys without any secret: the key itself exists only in its creator's hands. */
export async function listApiKeys(db: Database, merchantId: string): Promise<ApiKeySummary[]> {
  const rows = await db
    .selectFrom("api_keys")
    .select(["id", "name", "key_prefix", "created_at", "last_used_at", "revoked_at"])
    .where("merchant_id", "=", merchantId)
    .orderBy("created_at", "desc")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    keyId: row.id,
    name: row.name,
    prefix: row.key_prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  }));
}

export async function listTerminals(db: Database, merchantId: string): Promise<Terminal[]> {
  const rows = await db
    .selectFrom("terminals")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .orderBy("created_at")
    .orderBy("terminal_identifier")
    .execute();
  return rows.map((row) => ({
    terminalIdentifier: row.terminal_identifier,
    merchantId: row.merchant_id,
    name: row.name,
    currencies: row.currencies,
  }));
}

export async function listThemes(db: Database, merchantId: string): Promise<Theme[]> {
  const rows = await db
    .selectFrom("themes")
    .select(THEME_COLUMNS)
    .where("merchant_id", "=", merchantId)
    .orderBy("created_at")
    .orderBy("theme_key")
    .execute();
  return rows.map(toTheme);
}

export interface PortalUserSummary {
  userId: string;
  email: string;
  role: string;
  createdAt: Date;
}

/** A merchant's portal users, without their password hashes. */
export async function listPortalUsers(db: Database, merchantId: string): Promise<PortalUserSummary[]> {
  const rows = await db
    .selectFrom("portal_users")
    .select(["id", "email", "role", "created_at"])
    .where("merchant_id", "=", merchantId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({ userId: row.id, email: row.email, role: row.role, createdAt: row.created_at }));
}

export interface MerchantSummary {
  merchantId: string;
  name: string;
  createdAt: Date;
}

/** Merchants newest first, one page of them, and how many there are in all. */
export async function listMerchants(
  db: Database,
  page: { offset: number; limit: number },
): Promise<{ merchants: MerchantSummary[]; totalCount: number }> {
  const rows = await db
    .selectFrom("merchants")
    .select(["id", "name", "created_at", WINDOW_TOTAL])
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  const totalCount = await pageTotal(rows, () =>
    db
      .selectFrom("merchants")
      .select((eb) => eb.fn.countAll<string>().as("count"))
      .executeTakeFirstOrThrow(),
  );
  return { merchants: rows.map((row) => ({ merchantId: row.id, name: row.name, createdAt: row.created_at })), totalCount };
}
