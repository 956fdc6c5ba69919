// The fault matrix (issue 29; docs/operations.md#fault-matrix). Two `paylink serve` processes share
// a fresh PostgreSQL database through a TCP proxy this script controls. The database lives on a
// PostgreSQL server the run starts for itself (test/support/private-postgres.ts) when the machine
// can, else on the given server, which is never touched beyond that database (its own backends,
// its own ALLOW_CONNECTIONS). Under a steady mixed load — link creates, checkout payments, token
// charges, refunds, portal pages, every POST with an Idempotency-Key — each fault is applied for a
// few seconds in turn: backends terminated, the database refusing connections (55000), the server
// stopped (pg_ctl stop -m fast on its own server; the proxy refusing connections otherwise), and
// two tables locked under a burst of creates, so every connection of both pools is held and
// requests wait past the pool's time-out. Afterwards: no 500 and nothing internal in any body,
// every 503 of the API a 5003 with Retry-After, every acknowledged create, charge and refund stored
// exactly once, every approved checkout payment's webhook delivered, and every key refused during a
// fault succeeds on retry.
import type { IncomingMessage } from "node:http";
import pg from "pg";
import { POOL_CONNECT_TIMEOUT_MS, POOL_SIZE } from "../../src/db/connect.ts";
import { createPostgresDatabase } from "../support/databases.ts";
import { startPrivatePostgres } from "../support/private-postgres.ts";
import { type ServerProcess, startServerProcess } from "../support/process.ts";
import { cardFields, getPage, hiddenInputs, postForm } from "../support/shopper.ts";
import { databaseAddress, startTcpProxy } from "../support/tcp-proxy.ts";
import { startReceiver } from "../webhooks/support.ts";

export interface FaultRunOptions {
  adminUrl: string;
  /** How long each fault lasts (default 4 s). */
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
/** Concurrent creates sent to each instance while its pool is to be full: more than it has connections. */
const BURST_PER_INSTANCE = POOL_SIZE + 6;
/** How long the pool stays full: past the time a request waits for a connection. */
const POOL_FULL_MS = POOL_CONNECT_TIMEOUT_MS + 2_000;

interface Fault {
  name: string;
  /** How long it lasts, when not the run's outage. */
  lasts?: number;
  /** It must be seen: some request answers 503 while it lasts. */
  unavailable?: boolean;
  apply(): Promise<void>;
  undo(): Promise<void>;
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
type Outcome = number | string;

/** What the load saw while one fault lasted (and the seconds after it). */
interface Phase {
  name: string;
  answers: Map<Outcome, number>;
  acknowledged: number;
  refusedKeys: number;
}

/** Markers of text that must never reach a client: driver, Fastify, Node or stack text. */
const INTERNAL = /ECONN|FST_|statusCode|terminat|not currently accepting|SQLSTATE|at \w[\w.]* \(|stack/i;

export async function runFaults(options: FaultRunOptions): Promise<FaultRunResult> {
  const log = options.log ?? (() => {});
  const outageMs = options.outageMs ?? 4_000;
  // A server of its own, when the machine can start one, so that "server stopped" stops a real
  // server; otherwise the given server, and the proxy refusing connections stands in for the stop.
  const cluster = await startPrivatePostgres();
  const adminUrl = cluster?.url ?? options.adminUrl;
  const database = await createPostgresDatabase(adminUrl).catch(async (error) => {
    await cluster?.destroy();
    throw error;
  });
  const databaseName = new URL(database.url).pathname.slice(1);
  const proxy = await startTcpProxy(databaseAddress(database.url));
  const receiver = await startReceiver();
  const servers: ServerProcess[] = [];
  const started = Date.now();
  const at = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  const problems: string[] = [];
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
    const token = await saveCard(a.baseUrl, shop);
    const portalCookie = await portalSession(a.baseUrl, shop.merchantId);
    log(`${at()}  two instances on ${databaseName} through the proxy; load starts`);

    let phase: Phase = { name: "steady", answers: new Map(), acknowledged: 0, refusedKeys: 0 };
    const phases: Phase[] = [phase];
    const created: string[] = [];
    const charged: string[] = [];
    const refunded: string[] = [];
    const approved: string[] = [];
    const sold: string[] = [];
    /** POSTs refused during a fault, to be retried with the same key afterwards. */
    const refused: { kind: string; send: () => Promise<Answer> }[] = [];
    const record = (kind: string, answer: Answer, retry?: () => Promise<Answer>) => {
      phase.answers.set(answer.status, (phase.answers.get(answer.status) ?? 0) + 1);
      if (typeof answer.status === "number" && answer.status >= 500 && answer.status !== 503)
        problems.push(`${phase.name}: ${kind} answered ${answer.status} ${answer.text.slice(0, 160)}`);
      if (INTERNAL.test(answer.text)) problems.push(`${phase.name}: ${kind} showed internal text: ${answer.text.slice(0, 160)}`);
      if (answer.status === 503 && answer.json !== undefined && (answer.json.errorCode !== "5003" || !answer.retryAfter))
        problems.push(`${phase.name}: ${kind} answered 503 without 5003 and Retry-After: ${answer.text.slice(0, 160)}`);
      if (answer.status === 200 || answer.status === 303) phase.acknowledged++;
      if (answer.status === 503 && retry) {
        phase.refusedKeys++;
        refused.push({ kind, send: retry });
      }
    };
    const keyed = (kind: string, send: (key: string) => Promise<Answer>, onOk: (answer: Answer) => void) => {
      const key = `${kind}-${crypto.randomUUID()}`;
      const attempt = async () => {
        const answer = await send(key);
        if (answer.status === 200) onOk(answer);
        return answer;
      };
      return attempt().then((answer) => record(kind, answer, attempt));
    };

    let running = true;
    let turn = 0;
    const nextServer = () => servers[turn++ % servers.length]!;
    const loop = (work: () => Promise<unknown>) => async () => {
      while (running) {
        await work();
        await sleep(20);
      }
    };
    const createLink = () =>
      keyed(
        "create",
        (key) => api(nextServer().baseUrl, shop.apiKey, "/api/v1/paymentlinks/create", linkBody(shop.terminalIdentifier), key),
        (answer) => created.push(answer.json.paymentLinkReference),
      );
    const checkout = async () => {
      const server = nextServer();
      const made = await api(server.baseUrl, shop.apiKey, "/api/v1/paymentlinks/create", linkBody(shop.terminalIdentifier));
      record("create", made);
      if (made.status !== 200) return;
      created.push(made.json.paymentLinkReference);
      const reference = made.json.paymentLinkReference as string;
      const page = await getPage(server.baseUrl, `/pay/${reference}`).catch((error) => ({ status: codeOf(error), html: "" }));
      record("checkout page", { status: page.status, text: page.html, json: undefined });
      if (page.status !== 200) return;
      const posted = await postForm(server.baseUrl, reference, { ...hiddenInputs(page.html), ...cardFields() }).catch((error) => ({
        status: codeOf(error),
        location: null,
      }));
      record("checkout post", { status: posted.status, text: "", json: undefined });
      const checkoutReference = posted.location ? new URL(posted.location).searchParams.get("checkoutReference") : null;
      if (posted.status === 303 && checkoutReference) approved.push(checkoutReference);
    };
    const chargeToken = () =>
      keyed(
        "charge",
        (key) => api(nextServer().baseUrl, shop.apiKey, "/api/v1/payment", chargeBody(shop.terminalIdentifier, token), key),
        (answer) => {
          charged.push(answer.json.payfacReference);
          if (answer.json.resultCode === "Authorised") sold.push(answer.json.payfacReference);
        },
      );
    const refund = async () => {
      const payfacReference = sold.shift();
      if (!payfacReference) return;
      await keyed(
        "refund",
        (key) =>
          api(
            nextServer().baseUrl,
            shop.apiKey,
            "/api/v1/modification/refund",
            { payfacReference, amount: 10000, currency: "ISK", refundReason: "RETURN" },
            key,
          ),
        (answer) => refunded.push(answer.json.payfacReference),
      );
    };
    const portal = async () => {
      const server = nextServer();
      const page = await fetch(`${server.baseUrl}/portal/overview`, { headers: { cookie: portalCookie }, redirect: "manual" })
        .then(async (response) => ({ status: response.status as Outcome, text: await response.text(), json: undefined }))
        .catch((error) => ({ status: codeOf(error), text: "", json: undefined }));
      record("portal", page);
    };
    const clients = [loop(createLink), loop(createLink), loop(checkout), loop(chargeToken), loop(refund), loop(portal)].map((client) =>
      client(),
    );
    // A burst of creates on every instance, more at once than its pool has connections: while the
    // links table is locked each holds its connection, and the rest wait for one until the pool's
    // time-out (5 s) answers them 503.
    let bursting = false;
    const bursts: Promise<void>[] = [];
    const burst = (server: ServerProcess) => async () => {
      while (bursting) {
        await keyed(
          "create",
          (key) => api(server.baseUrl, shop.apiKey, "/api/v1/paymentlinks/create", linkBody(shop.terminalIdentifier), key),
          (answer) => created.push(answer.json.paymentLinkReference),
        );
      }
    };

    const faults: Fault[] = [
      {
        name: "backends terminated",
        apply: async () => void (await terminateBackends(adminUrl, databaseName)),
        undo: async () => {},
      },
      {
        name: "connections refused (55000)",
        apply: async () => {
          await adminQuery(adminUrl, `ALTER DATABASE ${databaseName} ALLOW_CONNECTIONS false`);
          await terminateBackends(adminUrl, databaseName);
        },
        undo: () => adminQuery(adminUrl, `ALTER DATABASE ${databaseName} ALLOW_CONNECTIONS true`),
      },
      cluster
        ? { name: "server stopped (pg_ctl)", apply: () => cluster.stop(), undo: () => cluster.start() }
        : { name: "server stopped (proxy)", apply: () => proxy.refuse(), undo: () => proxy.accept() },
      ...((): Fault[] => {
        let locker: pg.Client | undefined;
        return [
          {
            name: "slow statements, pool full",
            // Longer than the pool's wait for a connection, so waiting requests reach it.
            lasts: Math.max(outageMs, POOL_FULL_MS),
            unavailable: true,
            apply: async () => {
              locker = new pg.Client({ connectionString: database.url });
              await locker.connect();
              await locker.query("BEGIN");
              await locker.query("LOCK TABLE payment_links, token_payments IN EXCLUSIVE MODE");
              bursting = true;
              for (const server of servers) for (let i = 0; i < BURST_PER_INSTANCE; i++) bursts.push(burst(server)());
            },
            undo: async () => {
              bursting = false;
              await locker?.query("ROLLBACK");
              await locker?.end();
              await Promise.all(bursts);
            },
          },
        ];
      })(),
    ];

    await sleep(2000);
    for (const fault of faults) {
      phase = { name: fault.name, answers: new Map(), acknowledged: 0, refusedKeys: 0 };
      phases.push(phase);
      const faultPhase = phase;
      await fault.apply();
      log(`${at()}  fault: ${fault.name}`);
      await sleep(fault.lasts ?? outageMs);
      await fault.undo();
      await sleep(2000);
      if (fault.unavailable && !faultPhase.answers.has(503)) problems.push(`${fault.name}: no request was answered 503`);
    }
    phase = { name: "after", answers: new Map(), acknowledged: 0, refusedKeys: 0 };
    phases.push(phase);
    running = false;
    await Promise.all(clients);

    // Every POST refused during a fault, sent again with its key: it must succeed now.
    let retriedOk = 0;
    let inFlight = 0;
    for (const { kind, send } of refused) {
      let answer = await send();
      for (let tries = 0; answer.status !== 200 && tries < 20; tries++) {
        await sleep(250);
        answer = await send();
      }
      if (answer.status === 200) retriedOk++;
      // A saved-card charge whose processor call was in flight when the database went: its outcome
      // is unknown until the reconciler settles it, so its key rightly stays taken (3007).
      else if (kind === "charge" && answer.status === 409 && answer.json?.errorCode === "3007") inFlight++;
      else problems.push(`retry of a refused ${kind}: ${answer.status} ${answer.text.slice(0, 160)}`);
    }
    log(`${at()}  load stopped; ${retriedOk}/${refused.length} refused requests succeeded on retry; waiting for webhooks`);
    if (retriedOk + inFlight < refused.length) log(`${at()}  some retries failed (see below)`);

    const delivered = () => new Set(receiver.requests.map((request) => JSON.parse(request.body).checkoutReference as string));
    const webhooksStarted = Date.now();
    while (approved.some((reference) => !delivered().has(reference)) && Date.now() - webhooksStarted < 60_000) await sleep(250);
    const missingWebhooks = approved.filter((reference) => !delivered().has(reference));
    if (missingWebhooks.length)
      problems.push(`${missingWebhooks.length} approved payments without a webhook: ${missingWebhooks.slice(0, 5)}`);

    const stored = await storedCounts(database.url);
    const lost = (what: string, acknowledged: string[], table: Map<string, number>) => {
      const missing = acknowledged.filter((reference) => (table.get(reference) ?? 0) === 0);
      const twice = acknowledged.filter((reference) => (table.get(reference) ?? 0) > 1);
      if (missing.length) problems.push(`${missing.length} ${what} acknowledged but not stored: ${missing.slice(0, 5)}`);
      if (twice.length) problems.push(`${twice.length} ${what} stored more than once: ${twice.slice(0, 5)}`);
      return missing.length;
    };
    const lostCount =
      lost("links", created, stored.links) + lost("charges", charged, stored.payments) + lost("refunds", refunded, stored.refunds);
    for (const [index, server] of servers.entries())
      if (server.child.exitCode !== null || server.child.signalCode !== null)
        problems.push(`instance ${index + 1} died: ${server.output()}`);

    const lines = [
      `Fault matrix: 2 instances under mixed load, each fault ${outageMs / 1000} s, the pool full ${Math.max(outageMs, POOL_FULL_MS) / 1000} s (+2 s after)`,
      ...phases.map(
        (one) =>
          `  ${one.name.padEnd(28)} answers ${[...one.answers]
            .sort(([x], [y]) => String(x).localeCompare(String(y)))
            .map(([outcome, n]) => `${outcome}:${n}`)
            .join(" ")
            .padEnd(30)} acknowledged ${String(one.acknowledged).padStart(4)}  keys refused ${one.refusedKeys}`,
      ),
      `  acknowledged: links ${created.length}, charges ${charged.length}, refunds ${refunded.length}; each stored once: ${lostCount === 0 && problems.every((problem) => !problem.includes("stored")) ? "yes" : "no"}; lost ${lostCount}`,
      `  approved checkout payments ${approved.length}, webhooks delivered ${approved.length - missingWebhooks.length}`,
      `  refused POSTs retried with their keys: ${retriedOk}/${refused.length} succeeded, ${inFlight} charges in flight left to the reconciler`,
      `  result: ${problems.length === 0 ? "PASS" : "FAIL"}`,
      ...problems.slice(0, 20).map((problem) => `  PROBLEM: ${problem}`),
    ];
    return { ok: problems.length === 0, problems, summary: lines.join("\n") };
  } finally {
    await adminQuery(adminUrl, `ALTER DATABASE ${databaseName} ALLOW_CONNECTIONS true`).catch(() => {});
    await Promise.all(servers.map((server) => server.stop("SIGTERM")));
    await proxy.close();
    await receiver.close();
    if (cluster) await cluster.destroy();
    else await database.drop();
  }
}

interface Answer {
  status: Outcome;
  text: string;
  json: any;
  retryAfter?: string | null;
}

async function api(baseUrl: string, apiKey: string, path: string, body: unknown, key?: string): Promise<Answer> {
  try {
    const response = await fetch(`${baseUrl}${path}`, {
      method: "POST",
      headers: { "x-api-key": apiKey, "content-type": "application/json", ...(key ? { "idempotency-key": key } : {}) },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, text, json, retryAfter: response.headers.get("retry-after") };
  } catch (error) {
    return { status: codeOf(error), text: "", json: undefined };
  }
}

function linkBody(terminalIdentifier: string) {
  const amount = 48900;
  return {
    type: "PayByLink",
    terminalIdentifier,
    amount,
    currency: "ISK",
    items: [{ name: "Lopapeysa", quantity: 1, unitPrice: amount, amountWithoutDiscount: amount, amount }],
    returnUrl: "https://shop.example/thanks",
  };
}

function chargeBody(terminalIdentifier: string, token: string) {
  return {
    terminalIdentifier,
    amount: 48900,
    currency: "ISK",
    reference: "fault-run",
    tokenDetails: { tokenValue: token, recurringProcessingModel: "Subscription" },
    shopperIp: "203.0.113.7",
    origin: "https://shop.example",
    channel: "Web",
    returnUrl: "https://shop.example/return",
  };
}

/** A card saved through a TokenizeByLink link's checkout page, as a shopper saves one. */
async function saveCard(baseUrl: string, shop: { apiKey: string; terminalIdentifier: string }): Promise<string> {
  const made = await api(baseUrl, shop.apiKey, "/api/v1/paymentlinks/create", {
    type: "TokenizeByLink",
    terminalIdentifier: shop.terminalIdentifier,
    amount: 0,
    currency: "ISK",
    recurringProcessingModel: "Subscription",
  });
  const reference = made.json.paymentLinkReference as string;
  const page = await getPage(baseUrl, `/pay/${reference}`);
  await postForm(baseUrl, reference, { ...hiddenInputs(page.html), ...cardFields() });
  const read = await fetch(`${baseUrl}/api/v1/paymentlinks/${reference}`, { headers: { "x-api-key": shop.apiKey } });
  const token = ((await read.json()) as any).paymentLink.submissions[0]?.token;
  if (typeof token !== "string") throw new Error("the fault run could not save a card");
  return token;
}

/** A portal session's cookie for a new user of the shop. */
async function portalSession(baseUrl: string, merchantId: string): Promise<string> {
  const email = "faults@example.com";
  const password = "fault run password 0123";
  const made = await fetch(`${baseUrl}/admin/v1/merchants/${merchantId}/users`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (made.status !== 200) throw new Error(`portal user: ${made.status} ${await made.text()}`);
  const form = await fetch(`${baseUrl}/portal/sign-in`);
  const cookies = form.headers.getSetCookie().map((cookie) => cookie.split(";")[0]!);
  const html = await form.text();
  const posted = await fetch(`${baseUrl}/portal/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookies.join("; ") },
    body: new URLSearchParams({ ...hiddenInputs(html), email, password }).toString(),
  });
  const session = posted.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0]!)
    .find((cookie) => cookie.startsWith("paylink_session="));
  if (!session) throw new Error(`portal sign-in: ${posted.status}`);
  return session;
}

async function adminQuery(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
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
  return { apiKey: apiKey as string, terminalIdentifier: terminalIdentifier as string, merchantId: merchantId as string };
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

/** How many rows each reference has: links by reference, payments by payfacReference, refunds by their own. */
async function storedCounts(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const count = async (query: string) =>
    new Map((await client.query(query)).rows.map((row) => [row.reference as string, Number(row.n)] as [string, number]));
  try {
    return {
      links: await count("SELECT reference, count(*) AS n FROM payment_links GROUP BY reference"),
      payments: await count(
        "SELECT payfac_reference AS reference, count(*) AS n FROM token_payments WHERE payfac_reference IS NOT NULL GROUP BY payfac_reference",
      ),
      refunds: await count("SELECT payfac_reference AS reference, count(*) AS n FROM refunds GROUP BY payfac_reference"),
    };
  } finally {
    await client.end();
  }
}

/** A failed fetch's cause code (ECONNREFUSED, UND_ERR_SOCKET…), so the summary names it. */
function codeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  return cause?.code ?? (error as IncomingMessage & { code?: string })?.code ?? "network error";
}
