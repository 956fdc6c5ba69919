// Counts the database round trips of one checkout payment (the page, then the form post) and of a
// page view, on PostgreSQL: an in-process Paylink whose `pg` client counts every query it sends,
// statements and transactions apart. A deterministic measure next to the noisy req/s of the bench.
//
//   npx tsx packages/server/bench/payment-statements.ts [payments=20]
import pg from "pg";
import { cardFields, createLink, getPage, pay } from "../test/support/shopper.ts";

const payments = Number(process.argv[2] ?? 20);
process.env.TEST_DATABASE_URL ??= `${process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432"}/test`;

let statements = 0;
let transactions = 0;
const send = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
  const first = args[0];
  const text = typeof first === "string" ? first : ((first as { text?: string })?.text ?? "");
  if (/^\s*begin/i.test(text)) transactions++;
  else if (!/^\s*(commit|rollback)/i.test(text)) statements++;
  return send.apply(this, args);
} as typeof pg.Client.prototype.query;

const { startTestServer } = await import("../test/support/harness.ts");
const { testBackends } = await import("../test/support/databases.ts");
const backend = testBackends().find((b) => b.name === "postgres")!;
const server = await startTestServer({
  backend,
  rateLimits: { apiPerMinute: 999_999_999, checkoutFailures: 999_999_999, checkoutWindowMs: 15 * 60 * 1000 },
});
try {
  const reference = await createLink(server, { maxSalesCount: 100_000 });
  await pay(server.baseUrl, reference, cardFields());
  const measure = async (what: string, count: number, once: () => Promise<unknown>) => {
    // Let the webhook worker's wake-ups of the warm-up settle, then count only this work.
    await new Promise((resolve) => setTimeout(resolve, 300));
    statements = 0;
    transactions = 0;
    for (let i = 0; i < count; i++) await once();
    console.log(`${what}: ${(statements / count).toFixed(1)} statements, ${(transactions / count).toFixed(1)} explicit transactions`);
  };
  await measure("page view", payments, () => getPage(server.baseUrl, `/pay/${reference}`));
  await measure("checkout payment (page + post, webhook worker included)", payments, async () => {
    const paid = await pay(server.baseUrl, reference, cardFields());
    if (paid.status !== 200 && paid.status !== 303) throw new Error(`payment answered ${paid.status}`);
  });
} finally {
  await server.close();
}
