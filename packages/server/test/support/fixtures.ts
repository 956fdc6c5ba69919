// Shared helpers for the /api/v1 route tests: valid request bodies, response-shape assertions and
// a few direct database nudges (a sale, an expiry) for states the API itself cannot reach.
import assert from "node:assert/strict";
import { sql } from "kysely";
import { ERROR_CATALOGUE } from "../../src/domain/errors.ts";
import type { ApiResponse, MerchantFixture, TestServer } from "./harness.ts";

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** ISO 8601 in UTC, as Date.prototype.toISOString writes it. */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

export const ITEMS = [
  { name: "Lopapeysa", quantity: 1, unitPrice: 39900, amountWithoutDiscount: 39900, amount: 39900 },
  { name: "Húfa", quantity: 2, unitPrice: 5000, amountWithoutDiscount: 10000, amount: 9000 },
];
export const ITEMS_TOTAL = 48900;

/** A future time, as ISO text. */
export const future = (days = 30) => new Date(Date.now() + days * 86_400_000).toISOString();
/** A past time, as ISO text. */
export const past = (days = 1) => new Date(Date.now() - days * 86_400_000).toISOString();

type Terminal = Pick<MerchantFixture, "terminalIdentifier">;

/** A valid PayByLink create body with a two-item cart (ISK 48900). */
export function payByLink(merchant: Terminal, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: "PayByLink",
    terminalIdentifier: merchant.terminalIdentifier,
    amount: ITEMS_TOTAL,
    currency: "ISK",
    items: ITEMS.map((item) => ({ ...item })),
    ...overrides,
  };
}

/** A valid PayByLink create body without a cart (EUR 1250). */
export function simplePayByLink(merchant: Terminal, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: "PayByLink", terminalIdentifier: merchant.terminalIdentifier, amount: 1250, currency: "EUR", items: [], ...overrides };
}

/** A valid TokenizeByLink create body. */
export function tokenizeByLink(merchant: Terminal, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: "TokenizeByLink", terminalIdentifier: merchant.terminalIdentifier, amount: 0, currency: "ISK", ...overrides };
}

/** Headers that make `server.api` act as another merchant. */
export const as = (merchant: Pick<MerchantFixture, "apiKey">, headers: Record<string, string> = {}) => ({
  "x-api-key": merchant.apiKey,
  ...headers,
});

/** Checks the envelope every /api/v1 response carries (docs/api.md#basics). */
export function assertEnvelope(body: any): void {
  assert.equal(typeof body, "object", `expected a JSON object, got ${JSON.stringify(body)}`);
  assert.match(body.responseIdentifier, UUID, "responseIdentifier is a UUID");
  assert.match(body.responseDateTime, ISO_UTC, "responseDateTime is ISO 8601 UTC ending in Z");
  const age = Math.abs(Date.now() - Date.parse(body.responseDateTime));
  assert.ok(age < 60_000, `responseDateTime ${body.responseDateTime} is the time of the response`);
}

/** A success: HTTP 200 with the envelope. */
export function assertOk(response: ApiResponse): void {
  assert.equal(response.status, 200, `expected 200, got ${response.status}: ${JSON.stringify(response.body)}`);
  assertEnvelope(response.body);
}

/** An error body of docs/api.md#errors: exactly four keys, a catalogue code whose status is the HTTP status. */
export function assertErrorShape(response: ApiResponse): void {
  const body = response.body;
  assert.equal(typeof body, "object", `expected an error JSON object, got ${response.status} ${JSON.stringify(body)}`);
  assert.ok(body !== null);
  assert.deepEqual(Object.keys(body).sort(), ["errorCode", "errorMessage", "responseDateTime", "responseIdentifier"], JSON.stringify(body));
  assert.equal(typeof body.errorCode, "string");
  assert.ok(Object.hasOwn(ERROR_CATALOGUE, body.errorCode), `errorCode ${body.errorCode} is in the catalogue`);
  assert.equal(ERROR_CATALOGUE[body.errorCode as keyof typeof ERROR_CATALOGUE].status, response.status, `status of ${body.errorCode}`);
  assert.equal(typeof body.errorMessage, "string");
  assert.ok(body.errorMessage.length > 0, "errorMessage is not empty");
  assertEnvelope(body);
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
}

/** An error with this status and code (and, optionally, a message naming something). */
export function assertError(response: ApiResponse, status: number, code: string, messageIncludes?: string | RegExp): void {
  assert.equal(
    `${response.status} ${response.body?.errorCode}`,
    `${status} ${code}`,
    `expected ${status} ${code}, got ${response.status}: ${JSON.stringify(response.body)}`,
  );
  assertErrorShape(response);
  if (typeof messageIncludes === "string")
    assert.ok(response.body.errorMessage.includes(messageIncludes), `"${response.body.errorMessage}" names ${messageIncludes}`);
  else if (messageIncludes) assert.match(response.body.errorMessage, messageIncludes);
}

/** Reads a link; returns the paymentLink object. */
export async function getLink(server: TestServer, reference: string, headers: Record<string, string> = {}): Promise<any> {
  const response = await server.api("GET", `/api/v1/paymentlinks/${encodeURIComponent(reference)}`, undefined, headers);
  assertOk(response);
  return response.body.paymentLink;
}

/** GET → change → POST, as docs/api.md#update says clients update; returns the update response. */
export async function roundTrip(
  server: TestServer,
  reference: string,
  change: (link: any) => void,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const { submissions: _submissions, ...link } = await getLink(server, reference, headers);
  change(link);
  return server.api("POST", "/api/v1/paymentlinks/update", link, headers);
}

/** Records sales directly: the checkout page that makes them is not part of these tests. */
export async function setSalesCount(server: TestServer, reference: string, salesCount: number): Promise<void> {
  await sql`UPDATE payment_links SET sales_count = ${salesCount} WHERE reference = ${reference}`.execute(server.db);
}

/** Moves a link's expiry, bypassing the API's "must be in the future" rule. */
export async function setValidUntil(server: TestServer, reference: string, validUntil: Date | null): Promise<void> {
  await sql`UPDATE payment_links SET valid_until = ${validUntil} WHERE reference = ${reference}`.execute(server.db);
}

export async function setCreatedAt(server: TestServer, reference: string, createdAt: Date): Promise<void> {
  await sql`UPDATE payment_links SET created_at = ${createdAt} WHERE reference = ${reference}`.execute(server.db);
}

export async function countLinks(server: TestServer, merchantId: string): Promise<number> {
  const { rows } = await sql<{
    count: string | number;
  }>`SELECT count(*) AS count FROM payment_links WHERE merchant_id = ${merchantId}`.execute(server.db);
  return Number(rows[0]!.count);
}

/** A request with full control of the bytes, the content type and the key (fetch, no JSON help). */
export async function rawRequest(
  server: { baseUrl: string; apiKey?: string },
  method: string,
  path: string,
  options: { body?: string | Uint8Array<ArrayBuffer>; contentType?: string | null; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  // An empty apiKey sends no key header at all.
  const headers: Record<string, string> = { ...(server.apiKey ? { "x-api-key": server.apiKey } : {}), ...options.headers };
  if (options.contentType) headers["content-type"] = options.contentType;
  const response = await fetch(`${server.baseUrl}${path}`, { method, headers, body: options.body });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body };
}

/** The number of rows in a table, all merchants together. */
export async function rowCount(server: TestServer, table: string): Promise<number> {
  const { rows } = await sql<{ count: string | number }>`SELECT count(*) AS count FROM ${sql.table(table)}`.execute(server.db);
  return Number(rows[0]!.count);
}
