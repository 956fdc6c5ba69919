// Merchants and what hangs off them: terminals, API keys, themes, portal users.

import { createHash } from "node:crypto";
import type { Selectable } from "kysely";
import type { Role } from "../domain/portal/roles.ts";
import type { LogoImage } from "../domain/themes/logo.ts";
import { hashApiKey, newApiKey, newApiKeyId, newMerchantId, newTerminalIdentifier, newThemeKey, newUserId } from "../ids.ts";
import { apiKeyCacheOf, type CachedApiKey, LAST_USED_WRITE_INTERVAL_MS } from "./api-key-cache.ts";
import type { Database } from "./connect.ts";
import type { ThemesTable } from "./schema.ts";

export interface Terminal {
  terminalIdentifier: string;
  merchantId: string;
  name: string;
  /** null: any currency. */
  currencies: string[] | null;
}

export interface Theme {
  themeKey: string;
  merchantId: string;
  name: string;
  primaryColor: string | null;
  /** The https URL the logo was downloaded from (null for an uploaded data: logo or none). */
  logoUrl: string | null;
  /** A short hash of the stored logo's bytes (it versions the logo's URL), or null without a logo. */
  logoVersion: string | null;
}

export async function createMerchant(db: Database, name: string): Promise<{ merchantId: string; name: string }> {
  const merchantId = newMerchantId();
  await db.insertInto("merchants").values({ id: merchantId, name }).execute();
  return { merchantId, name };
}

export async function merchantExists(db: Database, merchantId: string): Promise<boolean> {
  const row = await db.selectFrom("merchants").select("id").where("id", "=", merchantId).executeTakeFirst();
  return row !== undefined;
}

export async function createTerminal(db: Database, merchantId: string, name: string, currencies: string[] | null): Promise<Terminal> {
  const terminalIdentifier = newTerminalIdentifier();
  await db.insertInto("terminals").values({ terminal_identifier: terminalIdentifier, merchant_id: merchantId, name, currencies }).execute();
  return { terminalIdentifier, merchantId, name, currencies };
}

/** Whose terminal it is; undefined for no terminal. */
export async function merchantOfTerminal(db: Database, terminalIdentifier: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("terminals")
    .select("merchant_id")
    .where("terminal_identifier", "=", terminalIdentifier)
    .executeTakeFirst();
  return row?.merchant_id;
}

/** The merchant's terminal, with the type of processor that takes its money (docs/processors.md). */
export async function findTerminal(
  db: Database,
  merchantId: string,
  terminalIdentifier: string,
): Promise<(Terminal & { processorType: string }) | undefined> {
  const row = await db
    .selectFrom("terminals")
    .selectAll()
    .where("terminal_identifier", "=", terminalIdentifier)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return (
    row && {
      terminalIdentifier: row.terminal_identifier,
      merchantId: row.merchant_id,
      name: row.name,
      currencies: row.currencies,
      processorType: row.processor_type,
    }
  );
}

/** Creates a key and returns it in clear — the only time it exists outside the caller. */
export async function createApiKey(db: Database, merchantId: string, name: string): Promise<{ keyId: string; apiKey: string }> {
  const keyId = newApiKeyId();
  const apiKey = newApiKey();
  await db
    .insertInto("api_keys")
    .values({ id: keyId, merchant_id: merchantId, name, key_hash: hashApiKey(apiKey), key_prefix: apiKey.slice(0, 8), revoked_at: null })
    .execute();
  return { keyId, apiKey };
}

/**
 * The merchant of an active API key. Keys are remembered in this process (db/api-key-cache.ts): a
 * known key costs no statement, except the cache's once-a-second generation check.
 */
export function findMerchantIdByApiKey(db: Database, apiKey: string): Promise<string | undefined> {
  return findMerchantIdByKeyHash(db, hashApiKey(apiKey));
}

/** As findMerchantIdByApiKey, for a caller that has hashed the key already. */
export async function findMerchantIdByKeyHash(db: Database, keyHash: string): Promise<string | undefined> {
  return (await findApiKeyByHash(db, keyHash))?.merchantId;
}

/** An active key's merchant, id and prefix, by its hash (the API's authentication). */
export async function findApiKeyByHash(db: Database, keyHash: string): Promise<CachedApiKey | undefined> {
  const cache = apiKeyCacheOf(db);
  await cache.confirm();
  let key = cache.get(keyHash);
  if (!key) {
    const epoch = cache.epoch;
    const row = await db
      .selectFrom("api_keys")
      .select(["id", "key_prefix", "merchant_id", "last_used_at"])
      .where("key_hash", "=", keyHash)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    if (!row) return undefined;
    key = { keyId: row.id, keyPrefix: row.key_prefix, merchantId: row.merchant_id, lastUsedAt: row.last_used_at?.getTime() ?? null };
    cache.remember(keyHash, key, epoch);
  }
  // "Last used" for the portal's key list, written at most once a minute per key and process, not per request.
  const now = Date.now();
  if (key.lastUsedAt === null || now - key.lastUsedAt > LAST_USED_WRITE_INTERVAL_MS) {
    key.lastUsedAt = now;
    await db
      .updateTable("api_keys")
      .set({ last_used_at: new Date(now) })
      .where("id", "=", key.keyId)
      .execute();
  }
  return key;
}

/**
 * Revokes a key; this process refuses it from the moment this returns, other instances within
 * about a second. Inside a caller's transaction, call forgetCachedApiKeys after its commit.
 */
export async function revokeApiKey(db: Database, merchantId: string, keyId: string): Promise<boolean> {
  const result = await db
    .updateTable("api_keys")
    .set({ revoked_at: new Date() })
    .where("id", "=", keyId)
    .where("merchant_id", "=", merchantId)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  apiKeyCacheOf(db).forgetAll();
  return result.numUpdatedRows > 0n;
}

/** Empties this process's key cache (db/api-key-cache.ts), after a key change committed. */
export function forgetCachedApiKeys(db: Database): void {
  apiKeyCacheOf(db).forgetAll();
}

export async function createTheme(
  db: Database,
  merchantId: string,
  theme: { name: string; primaryColor: string | null; logoUrl: string | null; logo?: LogoImage | null },
): Promise<Theme> {
  const themeKey = newThemeKey();
  const logo = theme.logo ?? null;
  const logoVersion = logo ? createHash("sha256").update(logo.bytes).digest("hex").slice(0, 16) : null;
  await db
    .insertInto("themes")
    .values({
      theme_key: themeKey,
      merchant_id: merchantId,
      name: theme.name,
      primary_color: theme.primaryColor,
      logo_url: theme.logoUrl,
      logo_content_type: logo?.contentType ?? null,
      logo_bytes: logo?.bytes ?? null,
      logo_sha256: logoVersion,
    })
    .execute();
  return { themeKey, merchantId, name: theme.name, primaryColor: theme.primaryColor, logoUrl: theme.logoUrl, logoVersion };
}

/** The stored logo of a theme, for the checkout to serve from its own origin. */
export async function findThemeLogo(db: Database, themeKey: string): Promise<(LogoImage & { version: string }) | undefined> {
  const row = await db
    .selectFrom("themes")
    .select(["logo_content_type", "logo_bytes", "logo_sha256"])
    .where("theme_key", "=", themeKey)
    .executeTakeFirst();
  if (!row?.logo_bytes || !row.logo_content_type || !row.logo_sha256) return undefined;
  return { contentType: row.logo_content_type as LogoImage["contentType"], bytes: Buffer.from(row.logo_bytes), version: row.logo_sha256 };
}

export async function findTheme(db: Database, merchantId: string, themeKey: string): Promise<Theme | undefined> {
  const row = await db
    .selectFrom("themes")
    .select(THEME_COLUMNS)
    .where("theme_key", "=", themeKey)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return row && toTheme(row);
}

export function toTheme(row: Pick<Selectable<ThemesTable>, (typeof THEME_COLUMNS)[number]>): Theme {
  return {
    themeKey: row.theme_key,
    merchantId: row.merchant_id,
    name: row.name,
    primaryColor: row.primary_color,
    logoUrl: row.logo_url,
    logoVersion: row.logo_sha256,
  };
}

/** The columns a Theme is made of (never the logo's bytes). */
export const THEME_COLUMNS = ["theme_key", "merchant_id", "name", "primary_color", "logo_url", "logo_sha256"] as const;

export async function createPortalUser(
  db: Database,
  merchantId: string,
  email: string,
  passwordHash: string,
  role: Role,
): Promise<{ userId: string; role: Role }> {
  const userId = newUserId();
  await db.insertInto("portal_users").values({ id: userId, merchant_id: merchantId, email, password_hash: passwordHash, role }).execute();
  return { userId, role };
}

export async function countMerchants(db: Database): Promise<number> {
  const row = await db
    .selectFrom("merchants")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Changes a theme of this merchant; `logo` undefined keeps the stored logo, null removes it.
 * Returns the theme as saved, or undefined when the merchant has no such theme.
 */
export async function updateTheme(
  db: Database,
  merchantId: string,
  themeKey: string,
  changes: { name?: string; primaryColor?: string | null; logo?: { image: LogoImage; sourceUrl: string | null } | null },
): Promise<Theme | undefined> {
  const logo = changes.logo;
  const logoColumns =
    logo === undefined
      ? {}
      : {
          logo_url: logo?.sourceUrl ?? null,
          logo_content_type: logo?.image.contentType ?? null,
          logo_bytes: logo?.image.bytes ?? null,
          logo_sha256: logo ? createHash("sha256").update(logo.image.bytes).digest("hex").slice(0, 16) : null,
        };
  const result = await db
    .updateTable("themes")
    .set({
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.primaryColor !== undefined ? { primary_color: changes.primaryColor } : {}),
      ...logoColumns,
    })
    .where("theme_key", "=", themeKey)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n ? findTheme(db, merchantId, themeKey) : undefined;
}
