// Every named prepared statement of the API's and the checkout's hot paths must keep reading only
// its own few rows however its tables grow after its plan was made. A pooled session makes
// a statement's generic plan once, possibly on a young installation's small tables, and keeps it
// until the tables' statistics change: never on the embedded database, and on PostgreSQL only when
// autovacuum analyses them (this machine's runs with it off). Such a plan once reached the API's
// link through its merchant's index and read every link of the merchant on each get: 7,965 gets/s
// fell to 907 after 52,546 creates.
//
// This test makes each statement's generic plan on small tables, then grows them (thousands of
// links and themes for the merchant, of submissions and brake rows for one link) without new
// statistics, runs the statement under EXPLAIN ANALYZE with the plan it kept, and checks that no
// step touched more than a few dozen rows or a dozen pages. Row and page counts, never timings;
// every run is rolled back. The statements checked are those the modules of the app declare.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Kysely, sql } from "kysely";
import "../src/app.ts";
import "../src/webhooks/hand-over.ts";
import { declaredStatements } from "../src/db/prepared.ts";
import type { DB } from "../src/db/schema.ts";
import { oneSessionOf, type TestDatabase, testBackends } from "./support/databases.ts";
import { addMerchantFixture, type MerchantFixture } from "./support/harness.ts";
import { type PlanNode, parsePlan, rolledBack, rowsTouched } from "./support/plans.ts";

/** Rows each grown table gains after the plans are made. */
const GROWTH = 4_000;
/** Rows any one step may touch: a page of 20 links, a merchant's 64 link-count slots. */
const MOST_ROWS_PER_STEP = 70;
/**
 * Pages any one step may read: a key's way down an index and its row, a page of 20 links (3–7
 * here). A walk through the merchant's 4,000 links or themes, or the link's 1,000 pending
 * submissions, reads 35–77.
 */
const MOST_PAGES_PER_STEP = 12;

/** Statements this test does not run, and why. */
const NOT_HERE: Record<string, string> = {
  webhook_record_and_hand_over:
    "test/webhooks/statement-plans.test.ts runs it against a grown log; on PostgreSQL the worker renews its plans once the table outgrows them (test/webhooks/queue-statistics.test.ts)",
  wait_until_durable: "reads no table",
};

const QUIET = "q";
const BUSY = "b";
/** A theme made after the merchant's thousands of others: its entry comes last in their index. */
const NEWEST_THEME = "plan-test-newest-theme";
const CARD = { masked: "411111******1111", last4: "1111", expiry: "03/30" };
const AMOUNT = 4900;
const WINDOW_ENDS = "2030-01-01T00:00:00Z";

type Value = string | number | boolean | null;

interface Case {
  /** The statement's parameters, in its order. */
  parameters: Value[];
  /** The rows its plan's top step returns. */
  rows?: number;
  /** False for an INSERT … ON CONFLICT alone: it finds its row through the arbiter index, outside the plan's steps. */
  scans?: false;
  /** What the statement must have written, checked before the rollback (for those whose plan returns no rows). */
  wrote?: (trx: Kysely<DB>) => Promise<void>;
}

/** How each statement is run. */
function cases(merchant: MerchantFixture): Record<string, Case> {
  return {
    api_link_with_submissions: { parameters: [QUIET, merchant.merchantId], rows: 1 },
    api_link_summaries: { parameters: [merchant.merchantId, 0, 20], rows: 20 },
    checkout_page: { parameters: [BUSY, "link"], rows: 1 },
    checkout_page_visit: { parameters: [BUSY, "link"], rows: 1 },
    api_insert_link_if_references_valid: {
      parameters: [
        "plan-test-new",
        merchant.merchantId,
        "PayByLink",
        AMOUNT,
        "ISK",
        "[]",
        "{}",
        null,
        "is-IS",
        NEWEST_THEME,
        "A new link",
        null,
        null,
        null,
        merchant.terminalIdentifier,
        "operator",
        null,
        "admin API",
        "link.create",
        "payment-link",
        "127.0.0.1",
        "{}",
      ],
      wrote: async (trx) => {
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM payment_links WHERE reference = 'plan-test-new'`.execute(
          trx,
        );
        assert.equal(rows[0]!.n, 1, "the link is inserted (its terminal and theme passed)");
      },
    },
  };
}

/** The pages a step itself read, without its children's: EXPLAIN counts a step's blocks with theirs. */
function ownPages(node: PlanNode): number {
  const pages = (n: PlanNode) => (n["Shared Hit Blocks"] ?? 0) + (n["Shared Read Blocks"] ?? 0);
  return pages(node) - (node.Plans ?? []).reduce((sum, child) => sum + pages(child), 0);
}

/**
 * Every step that reads a table or an index, with the rows it touched over all its loops and the
 * pages it read. Both are needed: an index scan that walks a merchant's entries and keeps the one
 * whose reference matches (a condition on a later column of the index) shows one row, but many pages.
 */
function tableReads(node: PlanNode, found: Read[] = []): Read[] {
  const name = node["Index Name"] ?? node["Relation Name"];
  if (name !== undefined && !/^(Insert|Update|Delete|ModifyTable)$/.test(node["Node Type"])) {
    found.push({ step: `${node["Node Type"]} on ${name}`, rows: rowsTouched(node), pages: ownPages(node) });
  }
  for (const child of node.Plans ?? []) tableReads(child, found);
  return found;
}

interface Read {
  step: string;
  rows: number;
  pages: number;
}

/** EXPLAIN ANALYZE of a statement PREPAREd as `plan_test_<name>` in this session, rolled back after `wrote`. */
function explainKept(db: Kysely<DB>, name: string, run: Case): Promise<PlanNode> {
  const { parameters } = run;
  const values = parameters.length > 0 ? sql`(${sql.join(parameters.map((value) => sql.lit(value)))})` : sql``;
  return rolledBack(db, async (trx) => {
    const explained = await sql<
      Record<string, unknown>
    >`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE ${sql.raw(`plan_test_${name}`)}${values}`.execute(trx);
    await run.wrote?.(trx);
    return parsePlan(explained.rows);
  });
}

/** Two links: a quiet one with two payments (the API reads it) and a busy one (the checkout pays it). */
async function addLinks(db: Kysely<DB>, merchant: MerchantFixture): Promise<void> {
  for (const reference of [QUIET, BUSY]) {
    await sql`
      INSERT INTO payment_links (reference, merchant_id, terminal_identifier, type, amount, currency, items, shopper_info, culture, theme_key, description)
      VALUES (${reference}, ${merchant.merchantId}, ${merchant.terminalIdentifier}, 'PayByLink', ${AMOUNT}, 'ISK', '[]', '{}', 'is-IS',
              ${merchant.themeKey}, 'Plan test')`.execute(db);
  }
  await addSubmissions(db, QUIET, 2);
  await addSubmissions(db, BUSY, 5);
  await sql`
    INSERT INTO checkout_attempts (client_key, link_reference, failures, in_flight, window_ends_at)
    VALUES ('client-1', ${BUSY}, 0, 1, ${WINDOW_ENDS})`.execute(db);
}

/** `count` submissions of a link, every fourth still pending (at the processor), the rest declined. */
async function addSubmissions(db: Kysely<DB>, link: string, count: number, from = 1): Promise<void> {
  await sql`
    INSERT INTO submissions (id, link_reference, answers, amount, currency, state, card_brand, card_masked, card_last4, card_expiry,
                             attempt_key, created_at)
    SELECT ${link} || CASE WHEN g % 4 = 0 THEN '-pending-' ELSE '-declined-' END || g, ${link}, '[]', ${AMOUNT}, 'ISK',
           CASE WHEN g % 4 = 0 THEN 'pending' ELSE 'declined' END, 'Visa', ${CARD.masked}, ${CARD.last4}, ${CARD.expiry},
           'attempt-' || g, now() - interval '1 hour' + g * interval '1 millisecond'
    FROM generate_series(${from}::int, ${from + count - 1}::int) g`.execute(db);
  // Each pending submission holds a reserved slot of its link.
  await sql`
    UPDATE payment_links SET reserved_count = (SELECT count(*) FROM submissions WHERE link_reference = ${link} AND state = 'pending')
    WHERE reference = ${link}`.execute(db);
}

/**
 * The young installation grows: links and themes of the merchant (the busy link then takes the
 * newest theme), submissions and brake rows of the busy link.
 */
async function grow(db: Kysely<DB>, merchant: MerchantFixture): Promise<void> {
  await sql`
    INSERT INTO payment_links (reference, merchant_id, terminal_identifier, type, amount, currency, items, shopper_info, culture, description, created_at)
    SELECT 'grown-' || g, ${merchant.merchantId}, ${merchant.terminalIdentifier}, 'PayByLink', ${AMOUNT}, 'ISK', '[]', '{}', 'is-IS',
           'Grown', now() - g * interval '1 second'
    FROM generate_series(1, ${GROWTH}::int) g`.execute(db);
  await sql`
    INSERT INTO themes (theme_key, merchant_id, name)
    SELECT 'grown-theme-' || g, ${merchant.merchantId}, 'Grown ' || g FROM generate_series(1, ${GROWTH}::int) g`.execute(db);
  await sql`INSERT INTO themes (theme_key, merchant_id, name) VALUES (${NEWEST_THEME}, ${merchant.merchantId}, 'Newest')`.execute(db);
  await sql`UPDATE payment_links SET theme_key = ${NEWEST_THEME} WHERE reference = ${BUSY}`.execute(db);
  await addSubmissions(db, BUSY, GROWTH, 6);
  await sql`
    INSERT INTO checkout_attempts (client_key, link_reference, failures, in_flight, window_ends_at)
    SELECT 'grown-client-' || g, ${BUSY}, 0, 1, ${WINDOW_ENDS} FROM generate_series(1, ${GROWTH}::int) g`.execute(db);
}

for (const backend of testBackends()) {
  describe(`prepared statements keep reading only their own rows as their tables grow (${backend.name})`, () => {
    let database: TestDatabase;
    let session: Awaited<ReturnType<typeof oneSessionOf>>;
    let runs: Record<string, Case>;

    before(async () => {
      database = await backend.open();
      const merchant = await addMerchantFixture(database.db);
      await addLinks(database.db, merchant);
      // Nothing may analyse the tables between the plans and the checks (a renewed plan would hide a bad one).
      for (const table of ["payment_links", "themes", "submissions", "checkout_attempts"])
        await sql`ALTER TABLE ${sql.raw(table)} SET (autovacuum_enabled = off)`.execute(database.db);
      runs = cases(merchant);
      session = await oneSessionOf(database);
      // The plan a session keeps once it settles on one; made now, on small tables.
      await sql`SET plan_cache_mode = force_generic_plan`.execute(session.db);
      for (const [name, run] of Object.entries(runs)) {
        const statement = declaredStatements().get(name);
        assert.ok(statement, `${name} is a declared statement`);
        await sql`PREPARE ${sql.raw(`plan_test_${name}`)} AS ${sql.raw(statement.text)}`.execute(session.db);
        // Its parameters may not fit the small tables (the newest theme comes with the growth): no check of what it wrote.
        await explainKept(session.db, name, { ...run, wrote: undefined });
      }
      await grow(database.db, merchant);
    });

    after(async () => {
      if (session) {
        await sql`DEALLOCATE ALL`.execute(session.db).catch(() => {});
        await sql`RESET plan_cache_mode`.execute(session.db).catch(() => {});
        await session.close();
      }
      await database?.destroy();
    });

    test("every declared statement is checked here or elsewhere", () => {
      const unchecked = [...declaredStatements().keys()].filter((name) => !(name in runs) && !(name in NOT_HERE));
      assert.deepEqual(unchecked, [], "declare a case for each new statement");
    });

    for (const name of Object.keys(cases({ merchantId: "", apiKey: "", terminalIdentifier: "", themeKey: "" }))) {
      test(`${name}, with the plan made on small tables, reads at most ${MOST_ROWS_PER_STEP} rows and ${MOST_PAGES_PER_STEP} pages in any step`, async () => {
        const run = runs[name]!;
        const plan = await explainKept(session.db, name, run);
        const reads = tableReads(plan);
        if (run.scans !== false) assert.ok(reads.length > 0, "the plan reads a table");
        if (run.rows !== undefined) assert.equal(plan["Actual Rows"], run.rows, "the statement did its work");
        assert.deepEqual(
          reads.filter((read) => read.rows > MOST_ROWS_PER_STEP || read.pages > MOST_PAGES_PER_STEP),
          [],
          "steps that read the grown tables",
        );
      });
    }
  });
}
