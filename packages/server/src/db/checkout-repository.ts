// What the checkout page reads besides the link's terms: the merchant's name and theme, the visit
// counter, and the key its form tokens are signed with. Reservations and submissions have their
// own repositories.
import { randomBytes } from "node:crypto";
import { hostedPageOrigin, isProcessorType, type ProcessorType } from "../payments/processor-config.ts";
import type { Database } from "./connect.ts";
import { LINK_RECORD_COLUMNS, type LinkRecordRow, type PaymentLinkRecord, toRecord } from "./links-repository.ts";
import { type PreparedStatement, preparedStatement, runPrepared } from "./prepared.ts";

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
  /** Some user of the merchant asked for a "you got paid" e-mail: only then is one rendered per payment. */
  paymentNotices: boolean;
  theme: CheckoutTheme | null;
  /** Who takes the money: the sandbox's card form, or a real processor's own page (docs/processors.md). */
  processorType: ProcessorType;
  /** Where the processor's page is: the checkout form may send the shopper there (its CSP allows it). */
  processorPageOrigin: string | null;
}

type PageRow = LinkRecordRow & {
  reserved_count: number;
  merchant_name: string;
  payment_notices: boolean;
  theme_theme_key: string | null;
  theme_name: string | null;
  primary_color: string | null;
  logo_sha256: string | null;
  processor_type: string;
  processor_settings: unknown;
};

/**
 * The page's read around a statement `l` that finds the link by reference ($1) and kind ($2). The
 * theme is found by its key, its owner checked in `IS TRUE` (db/prepared.ts says why).
 */
function pageRead(name: string, link: string): PreparedStatement {
  return preparedStatement(
    name,
    `WITH l AS (${link})
     SELECT l.*, m.name AS merchant_name,
       EXISTS (SELECT 1 FROM portal_users u WHERE u.merchant_id = l.merchant_id AND u.notify_payments) AS payment_notices,
       t.theme_key AS theme_theme_key, t.name AS theme_name, t.primary_color, t.logo_sha256, tm.processor_type, tm.processor_settings
     FROM l JOIN merchants m ON m.id = l.merchant_id JOIN terminals tm ON tm.terminal_identifier = l.terminal_identifier
     LEFT JOIN themes t ON t.theme_key = l.theme_key AND (t.merchant_id = l.merchant_id) IS TRUE`,
  );
}

const COLUMNS = [...LINK_RECORD_COLUMNS, "reserved_count"].join(", ");

// A visit is counted in the same statement as the read: the link's row, which every shopper of
// the link updates, is held only while PostgreSQL runs it, never across a round trip. A visit is a
// statistic: its commit does not wait for the disk (set_config below, for this transaction only),
// and nobody waits for it afterwards either.
const READ_COUNTING_VISIT = pageRead(
  "checkout_page_visit",
  `UPDATE payment_links SET visit_count = visit_count + 1
   WHERE reference = $1 AND kind = $2 AND set_config('synchronous_commit', 'off', true) IS NOT NULL
   RETURNING ${COLUMNS}`,
);
const READ = pageRead("checkout_page", `SELECT ${COLUMNS} FROM payment_links WHERE reference = $1 AND kind = $2`);

/**
 * The link (or session, by `kind`: a link's page never shows a session, nor a session's page a
 * link) with what its checkout page shows besides the terms (merchant name, theme), in one
 * statement. With `countVisit` the same statement adds the visit (one atomic increment, whatever
 * the link's status) and the link is read as the increment left it. Undefined when the link does
 * not exist (then no visit is counted).
 */
export async function loadCheckoutLink(
  db: Database,
  reference: string,
  options: { countVisit?: boolean; kind: "link" | "session" },
): Promise<CheckoutLink | undefined> {
  const result = await runPrepared<PageRow>(db, options.countVisit ? READ_COUNTING_VISIT : READ, [reference, options.kind]);
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    ...toRecord(row),
    reservedCount: row.reserved_count,
    merchantName: row.merchant_name,
    paymentNotices: row.payment_notices,
    processorType: isProcessorType(row.processor_type) ? row.processor_type : "sandbox",
    processorPageOrigin: hostedPageOrigin(row.processor_type, row.processor_settings),
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
