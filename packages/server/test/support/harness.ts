// A real Paylink server on a real database and a real port, for route, checkout and SDK tests;
// on PostgreSQL, a second instance on the same database, as a second server behind a load
// balancer would be.
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.ts";
import { type Database, openDatabase } from "../../src/db/connect.ts";
import { createApiKey, createMerchant, createTerminal, createTheme } from "../../src/db/merchants-repository.ts";
import type { RateLimits } from "../../src/http/rate-limit.ts";
import type { AfterSaleProcessor, PaymentProcessor } from "../../src/payments/processor.ts";
import { type ProcessorDirectory, processorDirectory } from "../../src/services/processor-directory.ts";
import { type TestBackend, type TestDatabase, testBackends } from "./databases.ts";
import { testKeyring } from "./keyring.ts";

export interface MerchantFixture {
  merchantId: string;
  apiKey: string;
  terminalIdentifier: string;
  themeKey: string;
}

export interface TestServer extends MerchantFixture {
  baseUrl: string;
  app: FastifyInstance;
  /** This instance's connection to the database. */
  db: Database;
  /** The test database (shared by a second instance). */
  database: TestDatabase;
  adminToken: string;
  /** Each terminal's real processor, as the server finds it (for use cases a test calls itself). */
  processors: ProcessorDirectory;
  /** Another merchant with its own key, terminal and theme. */
  addMerchant(options?: { currencies?: string[] }): Promise<MerchantFixture>;
  /** Calls the API with this server's merchant key (or another), returning status, headers and JSON. */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
  close(): Promise<void>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
}

export interface TestServerOptions {
  backend?: TestBackend;
  now?: () => Date;
  /** Outgoing requests (logo downloads) may reach private addresses. */
  allowPrivateTargets?: boolean;
  /** The checkout's card processor (default: the sandbox). */
  processor?: PaymentProcessor;
  /** The processor of saved-card charges, refunds and reversals (default: the checkout's, or a sandbox). */
  afterSaleProcessor?: AfterSaleProcessor;
  /** A logger to read what the server logs (default: silent). */
  logger?: FastifyBaseLogger;
  rateLimits?: RateLimits;
  trustProxy?: boolean;
  duplicateWaitMs?: number;
  /** Count the API limit in the database, as `paylink serve` does on PostgreSQL. */
  sharedRateLimit?: boolean;
  metricsToken?: string;
  /** PAYLINK_PROCESSOR_BASE_URLS=allow: terminals' processors may name their own API base. */
  allowProcessorBaseUrls?: boolean;
}

export const TEST_ADMIN_TOKEN = "test-admin-token-0123456789";

export async function addMerchantFixture(db: Database, options: { currencies?: string[] } = {}): Promise<MerchantFixture> {
  const { merchantId } = await createMerchant(db, "Test merchant");
  const terminal = await createTerminal(db, merchantId, "Test terminal", options.currencies ?? null);
  const { apiKey } = await createApiKey(db, merchantId, "Test key");
  const theme = await createTheme(db, merchantId, { name: "Test shop", primaryColor: "#123456", logoUrl: null });
  return { merchantId, apiKey, terminalIdentifier: terminal.terminalIdentifier, themeKey: theme.themeKey };
}

/** A server on a fresh database (the first backend unless told), with one merchant ready to use. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const backend = options.backend ?? testBackends()[0]!;
  const database = await backend.open();
  const merchant = await addMerchantFixture(database.db);
  const instance = await listen(database.db, options);
  return serverOf(instance, database.db, database, merchant, async () => {
    await instance.app.close();
    await database.destroy();
  });
}

/** Another instance on the first one's PostgreSQL database, with its own connection pool and the same merchant. */
export async function startSecondInstance(
  first: TestServer,
  options: Omit<TestServerOptions, "backend"> & { /** Another way to the same database (a proxy). */ databaseUrl?: string } = {},
): Promise<TestServer> {
  if (!first.database.url) throw new Error("a second instance needs PostgreSQL");
  const handle = await openDatabase({ kind: "postgres", url: options.databaseUrl ?? first.database.url }, { migrate: false });
  const instance = await listen(handle.db, options);
  return serverOf(instance, handle.db, first.database, first, async () => {
    await instance.app.close();
    await handle.close();
  });
}

async function listen(db: Database, options: TestServerOptions): Promise<{ app: FastifyInstance; baseUrl: string }> {
  // The public base URL must be known before listening; a placeholder is replaced below.
  let baseUrl = "http://127.0.0.1";
  const app = await buildApp({
    db,
    get publicBaseUrl() {
      return baseUrl;
    },
    adminToken: TEST_ADMIN_TOKEN,
    now: options.now,
    allowPrivateTargets: options.allowPrivateTargets ?? false,
    keyring: testKeyring(),
    processor: options.processor,
    afterSaleProcessor: options.afterSaleProcessor,
    logger: options.logger,
    rateLimits: options.rateLimits,
    trustProxy: options.trustProxy,
    duplicateWaitMs: options.duplicateWaitMs,
    sharedRateLimit: options.sharedRateLimit,
    metricsToken: options.metricsToken,
    allowProcessorBaseUrls: options.allowProcessorBaseUrls,
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (typeof address !== "object" || !address) throw new Error("server has no address");
  baseUrl = `http://127.0.0.1:${address.port}`;
  return { app, baseUrl };
}

function serverOf(
  instance: { app: FastifyInstance; baseUrl: string },
  db: Database,
  database: TestDatabase,
  merchant: MerchantFixture,
  close: () => Promise<void>,
): TestServer {
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> => {
    const response = await fetch(`${instance.baseUrl}${path}`, {
      method,
      headers: { "x-api-key": merchant.apiKey, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
  return {
    merchantId: merchant.merchantId,
    apiKey: merchant.apiKey,
    terminalIdentifier: merchant.terminalIdentifier,
    themeKey: merchant.themeKey,
    ...instance,
    db,
    database,
    adminToken: TEST_ADMIN_TOKEN,
    processors: processorDirectory({ db, keyring: testKeyring() }),
    addMerchant: (opts) => addMerchantFixture(db, opts),
    api,
    close,
  };
}
