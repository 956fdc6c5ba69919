// The after-sale tests of the real processors' adapters (straumur-, adyen- and
// stripe-after-sale.test.ts) share their way to a payment and their refund checks: a link sold,
// or a manual-capture session paid, on the processor's own page; the refunds Paylink recorded of a
// payment; and refunds racing on two instances. What differs, how each fake takes the card and
// sends the shopper back, each file passes in.
import assert from "node:assert/strict";
import { raceRefunds } from "./after-sale.ts";
import { type ApiResponse, startSecondInstance, type TestServer } from "./harness.ts";
import type { ProcessorShop } from "./processor-shop.ts";
import { postSessionForm } from "./sessions.ts";
import { createLink, getPage, hiddenInputs, postForm } from "./shopper.ts";
import { waitUntil } from "./wait.ts";

/**
 * What the shop's return page answers once it knows the payment's outcome: a link's receipt (200),
 * or a session's 303 to the merchant's returnUrl.
 */
export type ShopReturn = 200 | 303;

/**
 * The shopper on the processor's page Paylink's form sent them to (`location`): pays there and
 * follows the processor back to the shop, the way this processor's fake does it, until the shop
 * answers `expected`.
 */
export type PayOnProcessorPage = (location: string, expected: ShopReturn) => Promise<void>;

export interface ProcessorSale {
  /** The link's reference (the merchantReference of its webhooks). */
  reference: string;
  /** The processor's page the shopper paid on. */
  processorPage: string;
  /** The approved attempt's checkoutReference. */
  attempt: string;
  payfacReference: string;
  /** The saved card's token, when the link saved one. */
  token: string | null;
}

/** Sells a link (or saves a card, with a TokenizeByLink's `options`) on the processor's page; resolves with the approved attempt. */
export async function sellLinkOnProcessorPage(
  shop: TestServer,
  payOnPage: PayOnProcessorPage,
  options: Record<string, unknown> = {},
): Promise<ProcessorSale> {
  const reference = await createLink(shop, options);
  const page = await getPage(shop.baseUrl, `/pay/${reference}`);
  const posted = await postForm(shop.baseUrl, reference, hiddenInputs(page.html));
  assert.equal(posted.status, 303);
  await payOnPage(posted.location!, 200);
  const sale = await shop.db
    .selectFrom("submissions")
    .select(["id", "payfac_reference", "token"])
    .where("link_reference", "=", reference)
    .where("state", "=", "approved")
    .executeTakeFirstOrThrow();
  return { reference, processorPage: posted.location!, attempt: sale.id, payfacReference: sale.payfac_reference!, token: sale.token };
}

/**
 * A session of 48900 (reference "77") with manual capture, created through the API and paid on the
 * processor's page; resolves once its status is Completed, with the payment to capture.
 */
export async function payManualCaptureSession(
  shop: TestServer,
  payOnPage: PayOnProcessorPage,
): Promise<{ session: string; processorPage: string; payfacReference: string }> {
  const created = await shop.api("POST", "/api/v1/hostedcheckout", {
    amount: 48900,
    currency: "ISK",
    returnUrl: "http://shop.example/order/77",
    reference: "77",
    terminalIdentifier: shop.terminalIdentifier,
    isManualCapture: true,
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const session = created.body.checkoutReference as string;
  const page = await getPage(shop.baseUrl, `/checkout/${session}`);
  const posted = await postSessionForm(shop.baseUrl, session, hiddenInputs(page.html));
  assert.equal(posted.status, 303);
  await payOnPage(posted.location!, 303);
  const status = await shop.api("GET", `/api/v1/hostedcheckout/status/${session}`);
  assert.equal(status.body.status, "Completed");
  return { session, processorPage: posted.location!, payfacReference: status.body.payfacReference as string };
}

/**
 * Charges a saved card through Paylink's API as a subscription's renewal is charged: 1290 kr. under
 * the merchant's `reference`, unless `overrides` say otherwise.
 */
export function chargeByToken(
  shop: Pick<TestServer, "api" | "terminalIdentifier">,
  tokenValue: string,
  reference: string,
  overrides: Record<string, unknown> = {},
): Promise<ApiResponse> {
  return shop.api("POST", "/api/v1/payment", {
    terminalIdentifier: shop.terminalIdentifier,
    amount: 129000,
    currency: "ISK",
    reference,
    tokenDetails: { tokenValue, recurringProcessingModel: "Subscription" },
    ...overrides,
  });
}

/** The saved-card charge Paylink recorded under the merchant's `reference`. */
export function tokenPaymentOf(shop: Pick<TestServer, "db">, reference: string) {
  return shop.db
    .selectFrom("token_payments")
    .select(["id", "state", "payfac_reference"])
    .where("merchant_reference", "=", reference)
    .executeTakeFirstOrThrow();
}

/** Asks to capture `amount` of the payment of payManualCaptureSession's session, under its reference "77". */
export function captureSessionPayment(shop: Pick<TestServer, "api">, payfacReference: string, amount: number): Promise<ApiResponse> {
  return shop.api("POST", "/api/v1/modification/capture", { reference: "77", payfacReference, amount, currency: "ISK" });
}

/** The captures Paylink recorded of a payment, oldest first. */
export function capturesRecorded(shop: Pick<TestServer, "db">, payfacReference: string) {
  return shop.db
    .selectFrom("captures")
    .select(["state", "amount", "processor_reference", "failure_reason"])
    .where("original_payfac_reference", "=", payfacReference)
    .orderBy("created_at")
    .execute();
}

/**
 * Waits for the shop's return page at `path` to show the outcome (`expected`). Until the processor's
 * notification arrives (a saved card's token comes with it) the page answers 202 and asks again.
 */
export async function waitForReceipt(shop: Pick<TestServer, "baseUrl">, path: string, expected: ShopReturn): Promise<void> {
  await waitUntil(async () => (await getPage(shop.baseUrl, path)).status === expected, 10_000, "the receipt");
}

/**
 * Reverses a payment through Paylink's API (`reference`: the merchant's order, when given): Paylink
 * answers Received at once and the processor's answer settles the reversal.
 */
export async function reverseReceived(shop: Pick<TestServer, "api">, payfacReference: string, reference?: string): Promise<void> {
  const reversed = await shop.api("POST", "/api/v1/modification/reverse", { payfacReference, reference });
  assert.equal(reversed.status, 200, JSON.stringify(reversed.body));
  assert.equal(reversed.body.status, "Received");
}

/** The refunds and reversals Paylink recorded of a payment, oldest first. */
export function refundsRecorded(shop: Pick<TestServer, "db">, payfacReference: string) {
  return shop.db
    .selectFrom("refunds")
    .select(["payfac_reference", "kind", "amount", "state", "processor_reference", "failure_reason"])
    .where("original_payfac_reference", "=", payfacReference)
    .orderBy("created_at")
    .execute();
}

/** Waits until a payment has at least `count` refunds and none is pending any more (the processor's notifications settle them); resolves with them. */
export async function refundsSettled(shop: Pick<TestServer, "db">, payfacReference: string, count: number) {
  await waitUntil(
    async () => {
      const refunds = await refundsRecorded(shop, payfacReference);
      return refunds.length >= count && refunds.every((row) => row.state !== "pending");
    },
    20_000,
    "the processor's notifications settle the refunds",
  );
  return refundsRecorded(shop, payfacReference);
}

/**
 * Twenty refunds of 5000 of one sale of 48900, sent at once alternately through the shop and a
 * second instance on the same PostgreSQL. The sale holds nine: nine are received and asked of the
 * processor (counted by `askedToRefund`), the eleven others are refused (400 2019) before it is
 * asked, and the merchant gets exactly nine Refund webhooks. Resolves with the sale, for the
 * processor's own checks.
 */
export async function refundRaceOnTwoInstances<Sale extends { reference: string; payfacReference: string }>(
  context: Pick<ProcessorShop, "shop" | "merchantWebhooks">,
  sell: () => Promise<Sale>,
  askedToRefund: (payfacReference: string) => number,
): Promise<Sale> {
  const { shop } = context;
  const second = await startSecondInstance(shop, { allowPrivateTargets: true, allowProcessorBaseUrls: true });
  try {
    const sale = await sell();
    const before = askedToRefund(sale.payfacReference);
    const { received, refused, statuses } = await raceRefunds([shop, second], sale.payfacReference, 20, 5000);
    // 48900 holds nine refunds of 5000: the tenth and later are refused before the processor is asked.
    assert.equal(received.length, 9, JSON.stringify(statuses));
    assert.equal(refused.length, 11);
    assert.ok(refused.every((answer) => answer.body.errorCode === "2019"));
    assert.equal(askedToRefund(sale.payfacReference) - before, 9, "the processor is asked only for the refunds that fit");
    const refundWebhooks = () => context.merchantWebhooks(sale.reference).filter((body) => body.additionalData.eventType === "Refund");
    await waitUntil(async () => refundWebhooks().length >= 9, 20_000, "the merchant's Refund webhooks");
    // Lets any webhook still in flight arrive before counting them.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(refundWebhooks().length, 9);
    return sale;
  } finally {
    await second.close();
  }
}
