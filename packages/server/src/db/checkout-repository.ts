// What the checkout page reads besides the link's terms: the merchant's name and theme, the visit
// counter, and the key its form tokens are signed with. Reservations and submissions have their
// own repositories.
import { randomBytes } from "node:crypto";
import type { Database } from "./connect.ts";
import { findLinkByReference, type PaymentLinkRecord } from "./links-repository.ts";

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

/** One visit, one atomic increment, whatever the link's status. False when the link does not exist. */
export async function countVisit(db: Database, reference: string): Promise<boolean> {
  const result = await db
    .updateTable("payment_links")
    .set((eb) => ({ visit_count: eb("visit_count", "+", 1) }))
    .where("reference", "=", reference)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The link with what its checkout page shows besides the terms: merchant name and theme. */
export async function loadCheckoutLink(db: Database, reference: string): Promise<CheckoutLink | undefined> {
  const link = await findLinkByReference(db, reference);
  if (!link) return undefined;
  const row = await db
    .selectFrom("payment_links as l")
    .innerJoin("merchants as m", "m.id", "l.merchant_id")
    .leftJoin("themes as t", (join) => join.onRef("t.theme_key", "=", "l.theme_key").onRef("t.merchant_id", "=", "l.merchant_id"))
    .select(["l.reserved_count", "m.name as merchant_name", "t.theme_key", "t.name as theme_name", "t.primary_color", "t.logo_sha256"])
    .where("l.reference", "=", reference)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    ...link,
    reservedCount: row.reserved_count,
    merchantName: row.merchant_name,
    theme:
      row.theme_name === null || row.theme_key === null
        ? null
        : { themeKey: row.theme_key, name: row.theme_name, primaryColor: row.primary_color, logoVersion: row.logo_sha256 },
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
