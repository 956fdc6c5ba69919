// Issue #12 acceptance 2: the database failing under load. Two `paylink serve` processes share a
// fresh PostgreSQL database through a TCP proxy this script controls (the machine's PostgreSQL is
// never touched: only this database's own backends are terminated). Clients create links and pay
// through the checkout, with a webhook receiver; meanwhile every connection of the database is
// terminated (pg_terminate_backend), then the proxy refuses connections for 10 s. Afterwards:
// every create answered 200 is in the database, every approved payment's webhook arrived, no
// answer was a 500, and both processes are still running.
import type { IncomingMessage } from "node:http";
import pg from "pg";
import { createPostgresDatabase } from "../support/databases.ts";
import { type ServerProcess, startServerProcess } from "../support/process.ts";
import { cardFields, getPage, hiddenInputs, postForm } from "../support/shopper.ts";
import { databaseAddress, startTcpProxy } from "../support/tcp-proxy.ts";
import { startReceiver } from "../webhooks/support.ts";

export interface FaultRunOptions {
  adminUrl: string;
  /** How long the database refuses connections (default 10 s). */
  outageMs?: number;
  /** Concurrent clients creating links, and paying (default 4 and 2). */
  creators?: number;
  payers?: number;
  log?: (line: string) => void;
}

export interface FaultRunResult {
  ok: boolean;
  problems: string[];
  summary: string;
}

const ADMIN_TOKEN = "fault-run-admin-token-0123456789";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
type Outcome = number | string;

export async function runFaults(options: FaultRunOptions): Promise<FaultRunResult> {
  const log = options.log ?? (() => {});
  const outageMs = options.outageMs ?? 10_000;
  const database = await createPostgresDatabase(options.adminUrl);
  const databaseName = new URL(database.url).pathname.slice(1);
  const proxy = await startTcpProxy(databaseAddress(database.url));
  const receiver = await startReceiver();
  const servers: ServerProcess[] = [];
  const started = Date.now();
  const at = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  try {
    const env = {
      DATABASE_URL: proxy.urlThrough(database.url),
      PAYLINK_ADMIN_TOKEN: ADMIN_TOKEN,
      PAYLINK_WEBHOOK_ALLOW_PRIVATE: "true",
      PAYLINK_RATE_LIMIT_API: "0",
      PAYLINK_RATE_LIMIT_CHECKOUT_FAILURES: "0",
      LOG_LEVEL: "error",
    };
    servers.push(...(await Promise.all([startServerProcess(env), startServerProcess(env)])));
    const [a] = servers as [ServerProcess, ServerProcess];
    const shop = await provision(a.baseUrl, receiver.url);
    log(`${at()}  two instances on ${databaseName} through the proxy; load starts`);

    const counts = new Map<string, Map<Outcome, number>>();
    const count = (kind: string, outcome: Outcome) => {
      const perKind = counts.get(kind) ?? new Map<Outcome, number>();
      perKind.set(outcome, (perKind.get(outcome) ?? 0) + 1);
      counts.set(kind, perKind);
    };
    const createdReferences: string[] = [];
    const approved: string[] = [];
    let running = true;
    let turn = 0;
    const nextServer = () => servers[turn++ % servers.length]!;
    const createLinkOn = async (server: ServerProcess, kind: string): Promise<string | undefined> => {
      const outcome = await createOnce(server.baseUrl, shop);
      count(kind, outcome.status);
      if (outcome.status === 200 && outcome.reference) createdReferences.push(outcome.reference);
      return outcome.reference;
    };
    const creator = async () => {
      while (running) await createLinkOn(nextServer(), "create");
    };
    const payer = async () => {
      while (running) {
        const server = nextServer();
        const reference = await createLinkOn(server, "create");
        if (!reference) {
          await sleep(100);
          continue;
        }
        const page = await getPage(server.baseUrl, `/pay/${reference}`).catch((error) => ({ status: codeOf(error), html: "" }));
        count("checkout page", page.status);
        if (page.status !== 200) continue;
        const posted = await postForm(server.baseUrl, reference, { ...hiddenInputs(page.html), ...cardFields() }).catch((error) => ({
          status: codeOf(error),
          location: null,
        }));
        count("checkout post", posted.status);
        const checkoutReference = posted.location ? new URL(posted.location).searchParams.get("checkoutReference") : null;
        if (posted.status === 303 && checkoutReference) approved.push(checkoutReference);
      }
    };
    const clients = [...Array.from({ length: options.creators ?? 4 }, creator), ...Array.from({ length: options.payers ?? 2 }, payer)];

    await sleep(3000);
    const killed = await terminateBackends(options.adminUrl, databaseName);
    log(`${at()}  terminated ${killed} PostgreSQL connections of the database`);
    await sleep(2000);
    await proxy.refuse();
    log(`${at()}  the database refuses connections for ${outageMs / 1000} s`);
    await sleep(outageMs);
    await proxy.accept();
    const backAt = Date.now();
    log(`${at()}  the database accepts connections again`);
    const recovery = await Promise.all(servers.map((server) => firstSuccessAfter(server.baseUrl, shop)));
    log(`${at()}  both instances answer creates again (${recovery.map((ms) => `${ms} ms`).join(", ")})`);
    await sleep(3000);
    running = false;
    await Promise.all(clients);
    log(`${at()}  load stopped; waiting for webhooks`);

    const problems: string[] = [];
    const deliveredReferences = () => new Set(receiver.requests.map((request) => JSON.parse(request.body).checkoutReference as string));
    const webhooksStarted = Date.now();
    while (approved.some((reference) => !deliveredReferences().has(reference)) && Date.now() - webhooksStarted < 90_000) await sleep(250);
    const webhookWaitMs = Date.now() - webhooksStarted;
    const missingWebhooks = approved.filter((reference) => !deliveredReferences().has(reference));
    if (missingWebhooks.length)
      problems.push(`${missingWebhooks.length} approved payments without a webhook: ${missingWebhooks.slice(0, 5)}`);

    const stored = await storedReferences(database.url);
    const lost = createdReferences.filter((reference) => !stored.has(reference));
    if (lost.length) problems.push(`${lost.length} links answered 200 but not in the database: ${lost.slice(0, 5)}`);
    const fiveHundreds = [...counts.values()].reduce((sum, perKind) => sum + (perKind.get(500) ?? 0), 0);
    if (fiveHundreds > 0) problems.push(`${fiveHundreds} answers were 500`);
    for (const [index, server] of servers.entries())
      if (server.child.exitCode !== null || server.child.signalCode !== null)
        problems.push(`instance ${index + 1} died: ${server.output()}`);

    const lines = [
      `Fault run: 2 instances, PostgreSQL connections terminated, then refused for ${outageMs / 1000} s`,
      ...[...counts].map(([kind, perKind]) => `  ${kind.padEnd(14)} ${[...perKind].map(([outcome, n]) => `${outcome}: ${n}`).join(", ")}`),
      `  503 answers    ${[...counts.values()].reduce((sum, perKind) => sum + (perKind.get(503) ?? 0), 0)}`,
      `  500 answers    ${fiveHundreds}`,
      `  creates 200    ${createdReferences.length}, all in the database: ${lost.length === 0 ? "yes" : `no, ${lost.length} missing`}`,
      `  approved       ${approved.length}, webhooks delivered: ${approved.length - missingWebhooks.length} (all within ${(webhookWaitMs / 1000).toFixed(1)} s after the load)`,
      `  webhook posts  ${receiver.requests.length} (duplicates are allowed: at-least-once)`,
      `  recovery       ${recovery.map((ms, index) => `instance ${index + 1}: ${ms} ms`).join(", ")} after connections were accepted again`,
      `  since back     ${((Date.now() - backAt) / 1000).toFixed(1)} s; result: ${problems.length === 0 ? "PASS" : "FAIL"}`,
      ...problems.map((problem) => `  PROBLEM: ${problem}`),
    ];
    return { ok: problems.length === 0, problems, summary: lines.join("\n") };
  } finally {
    await Promise.all(servers.map((server) => server.stop("SIGTERM")));
    await proxy.close();
    await receiver.close();
    await database.drop();
  }
}

async function provision(baseUrl: string, webhookUrl: string) {
  const admin = async (path: string, body: unknown = {}) => {
    const response = await fetch(`${baseUrl}/admin/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (response.status !== 200) throw new Error(`admin ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as any;
  };
  const { merchantId } = await admin("/merchants", { name: "Fault run shop" });
  const { terminalIdentifier } = await admin(`/merchants/${merchantId}/terminals`);
  const { apiKey } = await admin(`/merchants/${merchantId}/apikeys`);
  await admin(`/merchants/${merchantId}/webhooks`, { url: webhookUrl });
  return { apiKey: apiKey as string, terminalIdentifier: terminalIdentifier as string };
}

async function createOnce(baseUrl: string, shop: { apiKey: string; terminalIdentifier: string }) {
  const amount = 48900;
  try {
    const response = await fetch(`${baseUrl}/api/v1/paymentlinks/create`, {
      method: "POST",
      headers: { "x-api-key": shop.apiKey, "content-type": "application/json" },
      body: JSON.stringify({
        type: "PayByLink",
        terminalIdentifier: shop.terminalIdentifier,
        amount,
        currency: "ISK",
        items: [{ name: "Lopapeysa", quantity: 1, unitPrice: amount, amountWithoutDiscount: amount, amount }],
        returnUrl: "https://shop.example/thanks",
      }),
    });
    const body = (await response.json().catch(() => ({}))) as { paymentLinkReference?: string };
    return { status: response.status as Outcome, reference: response.status === 200 ? body.paymentLinkReference : undefined };
  } catch (error) {
    return { status: codeOf(error), reference: undefined };
  }
}

/** Milliseconds until a create on this instance answers 200 again. */
async function firstSuccessAfter(baseUrl: string, shop: { apiKey: string; terminalIdentifier: string }): Promise<number> {
  const since = Date.now();
  while (Date.now() - since < 60_000) {
    if ((await createOnce(baseUrl, shop)).status === 200) return Date.now() - since;
    await sleep(50);
  }
  return Number.NaN;
}

/** pg_terminate_backend on this run's database only, never anyone else's. */
async function terminateBackends(adminUrl: string, databaseName: string): Promise<number> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS killed FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [databaseName],
    );
    return Number(rows[0].killed);
  } finally {
    await client.end();
  }
}

async function storedReferences(databaseUrl: string): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT reference FROM payment_links");
    return new Set(rows.map((row) => row.reference as string));
  } finally {
    await client.end();
  }
}

/** A failed fetch's cause code (ECONNREFUSED, UND_ERR_SOCKET…), so the summary names it. */
function codeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  return cause?.code ?? (error as IncomingMessage & { code?: string })?.code ?? "network error";
}
