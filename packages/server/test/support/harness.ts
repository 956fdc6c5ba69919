// A real Paylink server on a real database and a real port, for route and SDK tests.
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.ts";
import type { Database } from "../../src/db/connect.ts";
import { createApiKey, createMerchant, createTerminal, createTheme } from "../../src/db/merchants-repository.ts";
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
  db: Database;
  database: TestDatabase;
  adminToken: string;
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

export const TEST_ADMIN_TOKEN = "test-admin-token-0123456789";

export async function addMerchantFixture(db: Database, options: { currencies?: string[] } = {}): Promise<MerchantFixture> {
  const { merchantId } = await createMerchant(db, "Test merchant");
  const terminal = await createTerminal(db, merchantId, "Test terminal", options.currencies ?? null);
  const { apiKey } = await createApiKey(db, merchantId, "Test key");
  const theme = await createTheme(db, merchantId, { name: "Test shop", primaryColor: "#123456", logoUrl: null });
  return { merchantId, apiKey, terminalIdentifier: terminal.terminalIdentifier, themeKey: theme.themeKey };
}

export async function startTestServer(
  options: { backend?: TestBackend; now?: () => Date; allowPrivateTargets?: boolean } = {},
): Promise<TestServer> {
  const backend = options.backend ?? testBackends()[0]!;
  const database = await backend.open();
  const merchant = await addMerchantFixture(database.db);
  // The public base URL must be known before listening; a placeholder is replaced below.
  let baseUrl = "http://127.0.0.1";
  const app = await buildApp({
    db: database.db,
    get publicBaseUrl() {
      return baseUrl;
    },
    adminToken: TEST_ADMIN_TOKEN,
    now: options.now,
    allowPrivateTargets: options.allowPrivateTargets ?? false,
    keyring: testKeyring(),
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (typeof address !== "object" || !address) throw new Error("server has no address");
  baseUrl = `http://127.0.0.1:${address.port}`;

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> => {
    const response = await fetch(`${baseUrl}${path}`, {
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
    ...merchant,
    baseUrl,
    app,
    db: database.db,
    database,
    adminToken: TEST_ADMIN_TOKEN,
    addMerchant: (opts) => addMerchantFixture(database.db, opts),
    api,
    close: async () => {
      await app.close();
      await database.destroy();
    },
  };
}
