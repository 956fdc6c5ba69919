// What the checkout page reads besides the link's terms: the merchant's name and theme, the visit
// counter, and the key its form tokens are signed with. Reservations and submissions have their
// own repositories.
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import type { Database } from "./connect.ts";
import { type PaymentLinkRecord, toRecord } from "./links-repository.ts";

export interface CheckoutTheme {
  themeKey: string;
  name: string;
  primaryColor: string | null;
  /** Version of the stored logo (see findThemeLogo), or null when the theme has none. */
  logoVersion: string | null;
}

export interface CheckoutLink extends PaymentLinkRecord {
  reservedCount: number;
  merchantName: string;
  theme: CheckoutTheme | null;
}

/**
 * The link with what its checkout page shows besides the terms (merchant name, theme), in one
 * statement. With `countVisit` the same statement adds the visit (one atomic increment, whatever
 * the link's status) and the link is read as the increment left it. Undefined when the link does
 * not exist (then no visit is counted).
 */
export async function loadCheckoutLink(
  db: Database,
  reference: string,
  options: { countVisit?: boolean } = {},
): Promise<CheckoutLink | undefined> {
  const links = options.countVisit
    ? db.with("l", (cte) =>
        cte
          .updateTable("payment_links")
          .set((eb) => ({ visit_count: eb("visit_count", "+", 1) }))
          .where("reference", "=", reference)
          // A visit is a statistic: its commit does not wait for the disk (synchronous_commit off
          // for this statement's transaction only). Every shopper of one link updates one row, and
          // the row stays locked until the commit: waiting for the flush made views queue.
          .where(sql`set_config('synchronous_commit', 'off', true)`, "is not", null)
          .returningAll(),
      )
    : db.with("l", (cte) => cte.selectFrom("payment_links").selectAll().where("reference", "=", reference));
  const row = await links
    .selectFrom("l")
    .innerJoin("merchants as m", "m.id", "l.merchant_id")
    .leftJoin("themes as t", (join) => join.onRef("t.theme_key", "=", "l.theme_key").onRef("t.merchant_id", "=", "l.merchant_id"))
    .selectAll("l")
    .select(["m.name as merchant_name", "t.theme_key as theme_theme_key", "t.name as theme_name", "t.primary_color", "t.logo_sha256"])
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    ...toRecord(row),
    reservedCount: row.reserved_count,
    merchantName: row.merchant_name,
    theme:
      row.theme_name === null || row.theme_theme_key === null
        ? null
        : { themeKey: row.theme_theme_key, name: row.theme_name, primaryColor: row.primary_color, logoVersion: row.logo_sha256 },
  };
}

/** A secret every instance shares: created once by whichever instance asks first, then read. */
export async function sharedSecret(db: Database, name: string): Promise<string> {
  await db
    .insertInto("server_secrets")
    .values({ name, value: randomBytes(32).toString("hex") })
    .onConflict((conflict) => conflict.column("name").doNothing())
    .execute();
  const row = await db.selectFrom("server_secrets").select("value").where("name", "=", name).executeTakeFirstOrThrow();
  return row.value;
}
