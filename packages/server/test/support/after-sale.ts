// The after-sale tests' shortcuts: a card saved the way a shopper saves one (a TokenizeByLink link
// paid through its checkout page), a link sale made the same way, request bodies as the
// e-commerce plugins send them, and the after-sale use cases' dependencies as the server builds them.
import assert from "node:assert/strict";
import type { AfterSaleProcessor } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import type { AfterSaleServiceDeps } from "../../src/services/deps.ts";
import type { ApiResponse, MerchantFixture, TestServer } from "./harness.ts";
import { CARDS, cardFields, createLink, pay } from "./shopper.ts";

/** The sandbox card approved when saved whose later token payments are all refused. */
export const NO_BALANCE_CARD = "4000000000000341";

type Shop = Pick<TestServer, "baseUrl" | "api"> & Pick<MerchantFixture, "apiKey" | "terminalIdentifier">;

/**
 * What the after-sale use cases and the reconciler's sweep are given in `server` (its database,
 * its terminals' processors, its address), so a test can run them as the server would; `processor`
 * stands for the sandbox (a fresh one by default: the sandbox keeps nothing between restarts) and
 * the log is silent.
 */
export function afterSaleDeps(
  server: Pick<TestServer, "db" | "processors" | "baseUrl">,
  processor: AfterSaleProcessor = new SandboxProcessor(),
): AfterSaleServiceDeps {
  return {
    db: server.db,
    now: () => new Date(),
    processor,
    processors: server.processors,
    publicBaseUrl: server.baseUrl,
    log: { info() {}, warn() {}, error() {} },
  };
}

/** Saves `card` through a TokenizeByLink link's checkout page; returns the token. */
export async function saveCard(server: Shop, card: string = CARDS.visa, headers: Record<string, string> = {}): Promise<string> {
  const reference = await createLink(server, { type: "TokenizeByLink", recurringProcessingModel: "Subscription" }, headers);
  const paid = await pay(server.baseUrl, reference, cardFields(card));
  assert.ok(paid.status === 200 || paid.status === 303, `saving the card answered ${paid.status}`);
  const read = await server.api("GET", `/api/v1/paymentlinks/${reference}`, undefined, headers);
  const token = read.body.paymentLink.submissions[0]?.token;
  assert.match(String(token), /^[0-9A-Z]{16}$/, "the card was saved");
  return token as string;
}

/**
 * Saves `card` through a TokenizeByLink link in `culture` whose form asked the shopper's e-mail
 * and name; returns the token and the submission that saved it.
 */
export async function saveCardOf(
  server: Shop,
  shopper: { email: string; name: string; culture?: "is" | "en" },
  card: string = CARDS.visa,
): Promise<{ token: string; checkoutReference: string }> {
  const reference = await createLink(server, {
    type: "TokenizeByLink",
    recurringProcessingModel: "Subscription",
    culture: shopper.culture ?? "is",
    shopperInfo: [
      { field: "EmailAddress", requirementType: "Required" },
      { field: "FullName", requirementType: "Required" },
    ],
  });
  const paid = await pay(server.baseUrl, reference, { ...cardFields(card), EmailAddress: shopper.email, FullName: shopper.name });
  assert.ok(paid.status === 200 || paid.status === 303, `saving the card answered ${paid.status}`);
  const read = await server.api("GET", `/api/v1/paymentlinks/${reference}`);
  const saved = read.body.paymentLink.submissions[0];
  assert.match(String(saved?.token), /^[0-9A-Z]{16}$/, "the card was saved");
  return { token: saved.token as string, checkoutReference: saved.checkoutReference as string };
}

/** Sells a PayByLink link of `amount` ISK through its checkout page; returns the sale's payfacReference. */
export async function sellLink(
  server: Shop,
  amount = 48900,
  card: string = CARDS.visa,
): Promise<{ payfacReference: string; linkReference: string }> {
  const linkReference = await createLink(server, { amount });
  const paid = await pay(server.baseUrl, linkReference, cardFields(card));
  assert.ok(paid.status === 200 || paid.status === 303, `the payment answered ${paid.status}`);
  const read = await server.api("GET", `/api/v1/paymentlinks/${linkReference}`);
  const payfacReference = read.body.paymentLink.submissions[0]?.payfacReference;
  assert.match(String(payfacReference), /^[0-9A-Z]{16}$/, "the sale has a payfacReference");
  return { payfacReference, linkReference };
}

/** `POST /payment` as the e-commerce plugin sends it. */
export function chargeBody(merchant: Pick<MerchantFixture, "terminalIdentifier">, token: string, overrides: Record<string, unknown> = {}) {
  return {
    terminalIdentifier: merchant.terminalIdentifier,
    amount: 129900,
    currency: "ISK",
    reference: "order-1043",
    tokenDetails: { tokenValue: token, recurringProcessingModel: "Subscription" as const },
    shopperIp: "203.0.113.7",
    origin: "https://shop.example",
    channel: "Web",
    returnUrl: "https://shop.example/checkout/return?order=1043",
    ...overrides,
  };
}

export async function charge(
  server: TestServer,
  token: string,
  overrides: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  return server.api("POST", "/api/v1/payment", chargeBody(server, token, overrides), headers);
}

export async function refund(
  server: TestServer,
  payfacReference: string,
  amount: number,
  headers: Record<string, string> = {},
  currency = "ISK",
): Promise<ApiResponse> {
  return server.api("POST", "/api/v1/modification/refund", { payfacReference, amount, currency, refundReason: "RETURN" }, headers);
}

/**
 * `count` refunds of `amount` ISK of one payment sent at once, alternately through each instance
 * (two instances on one PostgreSQL race for real); the answers split into received and refused.
 */
export async function raceRefunds(
  instances: TestServer[],
  payfacReference: string,
  count: number,
  amount: number,
): Promise<{ received: ApiResponse[]; refused: ApiResponse[]; statuses: number[] }> {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      instances[i % instances.length]!.api("POST", "/api/v1/modification/refund", { payfacReference, amount, currency: "ISK" }),
    ),
  );
  return {
    received: answers.filter((answer) => answer.status === 200),
    refused: answers.filter((answer) => answer.status === 400),
    statuses: answers.map((answer) => answer.status),
  };
}
