// Helpers for checkout tests: a server with a chosen processor/logger (and, on PostgreSQL, a
// second app instance on the same database), link creation through the API, and a shopper who
// opens a checkout page and posts its form the way a browser without JavaScript does.
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.ts";
import { type DatabaseHandle, openDatabase } from "../../src/db/connect.ts";
import type { RateLimits } from "../../src/http/rate-limit.ts";
import type { PaymentProcessor } from "../../src/payments/processor.ts";
import { type TestBackend, type TestDatabase, testBackends } from "./databases.ts";
import { type ApiResponse, addMerchantFixture, type MerchantFixture, TEST_ADMIN_TOKEN } from "./harness.ts";

export interface CheckoutTestServer extends MerchantFixture {
  baseUrl: string;
  app: FastifyInstance;
  database: TestDatabase;
  api(method: string, path: string, body?: unknown): Promise<ApiResponse>;
  /** Creates a PayByLink (or whatever `overrides` say) and returns its reference. */
  createLink(overrides?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export interface CheckoutServerOptions {
  backend?: TestBackend;
  processor?: PaymentProcessor;
  logger?: FastifyBaseLogger;
  now?: () => Date;
  rateLimits?: RateLimits;
  trustProxy?: boolean;
  duplicateWaitMs?: number;
}

export async function startCheckoutServer(options: CheckoutServerOptions = {}): Promise<CheckoutTestServer> {
  const backend = options.backend ?? testBackends()[0]!;
  const database = await backend.open();
  const merchant = await addMerchantFixture(database.db);
  const instance = await listen(database.db, options);
  return decorate(instance, database, merchant, async () => {
    await instance.app.close();
    await database.destroy();
  });
}

/**
 * Another Paylink instance on the same PostgreSQL database (its own connection pool), as a
 * second server behind a load balancer would be.
 */
export async function startSecondInstance(
  first: CheckoutTestServer,
  options: Omit<CheckoutServerOptions, "backend"> = {},
): Promise<CheckoutTestServer> {
  if (!first.database.url) throw new Error("a second instance needs PostgreSQL");
  const handle: DatabaseHandle = await openDatabase({ kind: "postgres", url: first.database.url });
  const instance = await listen(handle.db, options);
  return decorate(instance, first.database, first, async () => {
    await instance.app.close();
    await handle.close();
  });
}

async function listen(db: DatabaseHandle["db"], options: CheckoutServerOptions): Promise<{ app: FastifyInstance; baseUrl: string }> {
  let baseUrl = "http://127.0.0.1";
  const app = await buildApp({
    db,
    get publicBaseUrl() {
      return baseUrl;
    },
    adminToken: TEST_ADMIN_TOKEN,
    ...(options.now ? { now: options.now } : {}),
    ...(options.processor ? { processor: options.processor } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
    ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
    ...(options.duplicateWaitMs !== undefined ? { duplicateWaitMs: options.duplicateWaitMs } : {}),
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (typeof address !== "object" || !address) throw new Error("server has no address");
  baseUrl = `http://127.0.0.1:${address.port}`;
  return { app, baseUrl };
}

function decorate(
  instance: { app: FastifyInstance; baseUrl: string },
  database: TestDatabase,
  merchant: MerchantFixture,
  close: () => Promise<void>,
): CheckoutTestServer {
  const api = async (method: string, path: string, body?: unknown): Promise<ApiResponse> => {
    const response = await fetch(`${instance.baseUrl}${path}`, {
      method,
      headers: { "x-api-key": merchant.apiKey, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
  return {
    ...merchant,
    ...instance,
    database,
    api,
    createLink: async (overrides = {}) => {
      const response = await api("POST", "/api/v1/paymentlinks/create", {
        type: "PayByLink",
        terminalIdentifier: merchant.terminalIdentifier,
        amount: 48900,
        currency: "ISK",
        items: [{ name: "Lopapeysa", quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }],
        ...overrides,
      });
      if (response.status !== 200) throw new Error(`create failed: ${JSON.stringify(response.body)}`);
      return response.body.paymentLinkReference as string;
    },
    close,
  };
}

/** A card expiry two years ahead, as `MM/YY`. */
export function futureExpiry(): string {
  const year = (new Date().getUTCFullYear() + 2) % 100;
  return `08/${String(year).padStart(2, "0")}`;
}

export const CARDS = {
  visa: "4111111111111111",
  mastercard: "5555555555554444",
  refused: "4000000000000002",
  expired: "4000000000000069",
  cvcDeclined: "4000000000000127",
  /** Luhn-valid, not in the sandbox table: approved. */
  other: "4242424242424242",
} as const;

export function cardFields(number: string = CARDS.visa): Record<string, string> {
  return { cardNumber: number.replace(/(\d{4})(?=\d)/g, "$1 "), cardExpiry: futureExpiry(), cardCvc: "737", cardHolder: "Jón Jónsson" };
}

export interface PageResponse {
  status: number;
  headers: Headers;
  html: string;
  /** Set on redirects. */
  location: string | null;
}

export async function getPage(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<PageResponse> {
  const response = await fetch(`${baseUrl}${path}`, { headers, redirect: "manual" });
  return { status: response.status, headers: response.headers, html: await response.text(), location: response.headers.get("location") };
}

/** The hidden inputs of the page's form, which a browser posts back unchanged. */
export function hiddenInputs(html: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/?>/g)) found[match[1]!] = decodeHtml(match[2]!);
  return found;
}

export function decodeHtml(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

export async function postForm(
  baseUrl: string,
  reference: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<PageResponse> {
  const response = await fetch(`${baseUrl}/pay/${reference}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, headers: response.headers, html: await response.text(), location: response.headers.get("location") };
}

/** Opens the page and posts its form with these fields (plus the page's hidden inputs). */
export async function pay(baseUrl: string, reference: string, fields: Record<string, string> = cardFields()): Promise<PageResponse> {
  const page = await getPage(baseUrl, `/pay/${reference}`);
  if (page.status !== 200) return page;
  return postForm(baseUrl, reference, { ...hiddenInputs(page.html), ...fields });
}

/** The visible text of a page (tags removed, entities decoded, whitespace collapsed). */
export function textOf(html: string): string {
  return decodeHtml(html.replace(/<style[\s\S]*?<\/style>/g, " ").replace(/<[^>]+>/g, " "))
    .replace(/\s+/g, " ")
    .trim();
}

/** Inserts an enabled webhook endpoint for the merchant, so the outbox writes rows for it. */
export async function addWebhookEndpoint(server: Pick<CheckoutTestServer, "database" | "merchantId">): Promise<string> {
  const id = `whe_test_${Math.random().toString(36).slice(2, 10)}`;
  await server.database.db
    .insertInto("webhook_endpoints")
    .values({ id, merchant_id: server.merchantId, url: "http://127.0.0.1:9/hook", api_key: "test-api-key", hmac_key: "00".repeat(32) })
    .execute();
  return id;
}

/** The outbox rows of the merchant, oldest first. */
export async function outboxMessages(server: CheckoutTestServer): Promise<Array<{ eventType: string; payload: any }>> {
  const rows = await server.database.db
    .selectFrom("webhook_deliveries")
    .select(["event_type", "payload", "created_at", "id"])
    .where("merchant_id", "=", server.merchantId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    eventType: row.event_type,
    payload: typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload,
  }));
}
