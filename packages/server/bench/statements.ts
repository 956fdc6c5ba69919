// Statements per request: a deterministic measure of what a request costs the database, steady
// on a shared machine where req/s is not. Builds Paylink in this process on a scratch PostgreSQL
// database (rate limit shared, as `paylink serve` runs it) and on the embedded database, counts
// every statement the server sends while each scenario runs `rounds` requests one after another,
// and prints the mean per request. Background work (version checks, counter flushes) that runs on
// a timer is counted too, so it shows when it is not negligible.
//
//   npx tsx packages/server/bench/statements.ts [rounds=200]
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { type TestBackend, testBackends } from "../test/support/databases.ts";
import { startTestServer, type TestServer } from "../test/support/harness.ts";
import { pay } from "../test/support/shopper.ts";
import { POSTGRES_SERVER } from "./databases.ts";
import { CREATE_BODY } from "./scenarios.ts";

const rounds = Number(process.argv[2] ?? 200);
let statements = 0;
const texts = new Map<string, number>();

function count(text: unknown) {
  statements++;
  const key = String(typeof text === "object" && text && "text" in text ? text.text : text)
    .replace(/\s+/g, " ")
    .slice(0, 90);
  texts.set(key, (texts.get(key) ?? 0) + 1);
}

// Every statement of the pg driver and of PGlite passes through these.
const pgQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  count(args[0]);
  return (pgQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pgQuery;
for (const method of ["query", "exec"] as const) {
  const original = PGlite.prototype[method];
  (PGlite.prototype as any)[method] = function (this: PGlite, ...args: unknown[]) {
    count(args[0]);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  };
}

async function scenarios(server: TestServer) {
  const headers = { "x-api-key": server.apiKey, "content-type": "application/json" };
  const api = `${server.baseUrl}/api/v1/paymentlinks`;
  const body = JSON.stringify(CREATE_BODY(server.terminalIdentifier));
  const created = await fetch(`${api}/create`, { method: "POST", headers, body });
  const { paymentLinkReference } = (await created.json()) as { paymentLinkReference: string };
  for (let i = 0; i < 20; i++) await pay(server.baseUrl, paymentLinkReference);
  return {
    "/healthz": () => fetch(`${server.baseUrl}/healthz`),
    create: () => fetch(`${api}/create`, { method: "POST", headers, body }),
    get: () => fetch(`${api}/${paymentLinkReference}`, { headers }),
    list: () => fetch(`${api}?pageSize=20`, { headers }),
  };
}

async function measure(backend: TestBackend) {
  const server = await startTestServer({
    backend,
    rateLimits: { apiPerMinute: 1_000_000, checkoutFailures: 0, checkoutWindowMs: 1 },
    sharedRateLimit: backend.name === "postgres",
  });
  try {
    for (const [name, request] of Object.entries(await scenarios(server))) {
      for (let i = 0; i < 5; i++) await (await request()).arrayBuffer();
      statements = 0;
      texts.clear();
      for (let i = 0; i < rounds; i++) {
        const response = await request();
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`${name}: ${response.status}`);
      }
      console.log(`${backend.name.padEnd(8)} ${name.padEnd(9)} ${(statements / rounds).toFixed(2)} statements/request`);
      for (const [text, n] of [...texts].sort((a, b) => b[1] - a[1])) console.log(`           ${(n / rounds).toFixed(2)}  ${text}`);
    }
  } finally {
    await server.close();
  }
}

process.env.TEST_DATABASE_URL ??= `${POSTGRES_SERVER}/postgres`;
for (const backend of testBackends()) await measure(backend);
