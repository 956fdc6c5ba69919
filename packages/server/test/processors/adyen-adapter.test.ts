// The Adyen adapter's pure parts: the notification HMAC against Adyen's own published test vectors
// (first, since everything else trusts it), Paylink's amounts in Adyen's minor units, what a
// notification and a session result say, and the fake's schema check itself.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { AdyenProcessor } from "../../src/payments/adyen.ts";
import {
  AdyenAmountError,
  AdyenUnsendableError,
  adyenExponent,
  adyenShopperReference,
  adyenToken,
  fromAdyenAmount,
  toAdyenAmount,
} from "../../src/payments/adyen-api.ts";
import { adyenItemSignature, verifyNotificationItem } from "../../src/payments/adyen-notifications.ts";
import type { HostedPaymentRequest } from "../../src/payments/hosted.ts";
import { type AdyenConfig, hostedPageOrigin } from "../../src/payments/processor-config.ts";
import {
  ADYEN_EXAMPLES,
  ADYEN_TEST_CARDS,
  CHECKOUT_SCHEMAS,
  type FakeAdyen,
  schemaErrors,
  signItem,
  startFakeAdyen,
} from "../support/adyen-fake.ts";

const VECTORS = JSON.parse(readFileSync(new URL("../fixtures/adyen/hmac-vectors.json", import.meta.url), "utf8")) as Array<{
  name: string;
  hmacKey: string;
  item: Record<string, any>;
  signature: string;
}>;

const HMAC_KEY = VECTORS[0]!.hmacKey;
const CONFIG: AdyenConfig = {
  type: "adyen",
  environment: "test",
  apiKey: "AQE-test-key",
  merchantAccount: "TestMerchant",
  hmacKey: HMAC_KEY,
  liveEndpointUrlPrefix: null,
  baseUrl: null,
};

describe("Adyen's notification HMAC", () => {
  for (const vector of VECTORS) {
    it(`matches Adyen's published vector: ${vector.name}`, () => {
      assert.equal(adyenItemSignature(vector.item, vector.hmacKey), vector.signature);
      const signed = { ...vector.item, additionalData: { ...(vector.item.additionalData ?? {}), hmacSignature: vector.signature } };
      assert.equal(verifyNotificationItem(signed, vector.hmacKey), true);
      // The fake's signer, written separately, agrees.
      assert.equal(signItem(vector.item, vector.hmacKey), vector.signature);
    });
  }

  it("refuses a changed field, another key, and a missing or malformed signature", () => {
    const vector = VECTORS[0]!;
    const signed = { ...vector.item, additionalData: { hmacSignature: vector.signature } };
    assert.equal(verifyNotificationItem({ ...signed, success: "false" }, vector.hmacKey), false);
    assert.equal(verifyNotificationItem({ ...signed, amount: { value: 1131, currency: "EUR" } }, vector.hmacKey), false);
    assert.equal(verifyNotificationItem(signed, "00".repeat(32)), false);
    assert.equal(verifyNotificationItem({ ...vector.item }, vector.hmacKey), false);
    assert.equal(verifyNotificationItem({ ...vector.item, additionalData: { hmacSignature: "not base64" } }, vector.hmacKey), false);
  });
});

describe("Paylink's amounts in Adyen's minor units", () => {
  it("ISK is two-decimal at Adyen as on Paylink's wire: 48900 is 489 kr. at both", () => {
    assert.equal(adyenExponent("ISK"), 2);
    assert.equal(toAdyenAmount(48900, "ISK"), 48900);
    assert.equal(toAdyenAmount(0, "ISK"), 0);
  });

  it("follows Adyen's table where it differs from ISO (CLP, CVE, IDR) and ISO elsewhere", () => {
    assert.equal(toAdyenAmount(1000, "EUR"), 1000);
    assert.equal(toAdyenAmount(1000, "JPY"), 1000);
    assert.equal(toAdyenAmount(1000, "KWD"), 1000);
    assert.equal(toAdyenAmount(1500, "CLP"), 150000, "CLP: ISO 0, Adyen 2");
    assert.equal(toAdyenAmount(150000, "IDR"), 1500, "IDR: ISO 2, Adyen 0");
    assert.equal(toAdyenAmount(2500, "CVE"), 25, "CVE: ISO 2, Adyen 0");
  });

  it("reads Adyen's amounts back into Paylink's, exactly or not at all", () => {
    for (const [amount, currency] of [
      [48900, "ISK"],
      [1500, "CLP"],
      [150000, "IDR"],
      [2500, "CVE"],
      [1000, "KWD"],
    ] as const) {
      assert.equal(fromAdyenAmount(toAdyenAmount(amount, currency), currency), amount, currency);
    }
    assert.throws(() => fromAdyenAmount(150050, "CLP"), AdyenAmountError);
  });

  it("refuses what Adyen cannot take exactly, never rounds", () => {
    assert.throws(() => toAdyenAmount(150050, "IDR"), AdyenAmountError);
    assert.throws(() => toAdyenAmount(-1, "EUR"), AdyenAmountError);
    assert.throws(() => toAdyenAmount(1.5, "EUR"), AdyenAmountError);
  });
});

/** A standard notification with its items signed by `key`. */
function notification(items: Array<Record<string, any>>, key = HMAC_KEY): string {
  return JSON.stringify({
    live: "false",
    notificationItems: items.map((item) => ({
      NotificationRequestItem: {
        ...item,
        additionalData: { ...(item.additionalData ?? {}), hmacSignature: adyenItemSignature(item, key) },
      },
    })),
  });
}

const authorisation = (overrides: Record<string, any> = {}) => ({
  amount: { currency: "ISK", value: 48900 },
  eventCode: "AUTHORISATION",
  eventDate: "2026-08-01T12:00:00+00:00",
  merchantAccountCode: "TestMerchant",
  merchantReference: "chk_0123456789",
  paymentMethod: "mc",
  pspReference: "QFQTPCQ8HXSKGK82",
  reason: "",
  success: "true",
  additionalData: { authCode: "654321", cardSummary: "4444", expiryDate: "3/2030", fundingSource: "DEBIT" },
  ...overrides,
});

describe("Adyen's notifications, read", () => {
  const adyen = new AdyenProcessor(CONFIG);

  it("an AUTHORISATION success is an approval with its pspReference, auth code and card", () => {
    assert.deepEqual(adyen.parseNotification({}, notification([authorisation()])), [
      {
        checkoutReference: "chk_0123456789",
        outcome: {
          kind: "approved",
          payfacReference: "QFQTPCQ8HXSKGK82",
          authCode: "654321",
          token: null,
          card: { brand: "MC", usage: "Debit", masked: null, last4: "4444", expiry: "03/2030" },
        },
      },
    ]);
  });

  it("a saved card's token is tokenization.storedPaymentMethodId (or recurring.recurringDetailReference) with the saving attempt", () => {
    const published = ADYEN_EXAMPLES.AUTHORISATION.notificationItems[0].NotificationRequestItem;
    const [fromExample] = adyen.parseNotification({}, notification([{ ...published, merchantAccountCode: "TestMerchant" }]))!;
    // Paylink's token holds Adyen's id and the saving attempt (its shopperReference's), so it can be charged later.
    assert.equal((fromExample as any).outcome.token, `M5N7TQ4TG5PFWR50.${published.merchantReference}`);
    const older = authorisation({ additionalData: { "recurring.recurringDetailReference": "8415718415172200", authCode: "1" } });
    const [fromRecurring] = adyen.parseNotification({}, notification([older]))!;
    assert.equal((fromRecurring as any).outcome.token, "8415718415172200.chk_0123456789");
    assert.equal((fromRecurring as any).outcome.token, adyenToken("8415718415172200", "chk_0123456789"));
  });

  it("success false is a decline with Adyen's reason", () => {
    const [declined] = adyen.parseNotification({}, notification([authorisation({ success: "false", reason: "Not enough balance" })]))!;
    assert.equal((declined as any).outcome.kind, "declined");
    assert.equal((declined as any).outcome.reason, "Not enough balance");
    assert.equal((declined as any).outcome.payfacReference, "QFQTPCQ8HXSKGK82");
  });

  it("one item with a bad signature refuses the whole notification; so does a body that is not one", () => {
    const good = notification([authorisation()]);
    const forged = JSON.parse(notification([authorisation({ pspReference: "FORGED0000000000" })], "11".repeat(32)));
    const mixed = JSON.stringify({
      live: "false",
      notificationItems: [...JSON.parse(good).notificationItems, ...forged.notificationItems],
    });
    assert.equal(adyen.parseNotification({}, mixed), null);
    assert.equal(adyen.parseNotification({}, "[accepted]"), null);
    assert.equal(adyen.parseNotification({}, JSON.stringify({ live: "false" })), null);
    assert.equal(adyen.parseNotification({}, JSON.stringify({ notificationItems: [{ Other: {} }] })), null);
  });

  it("other event codes and other merchant accounts' items change nothing", () => {
    const report = ADYEN_EXAMPLES.CANCEL_OR_REFUND.notificationItems[0].NotificationRequestItem;
    assert.deepEqual(
      adyen.parseNotification({}, notification([{ ...report, eventCode: "REPORT_AVAILABLE", merchantAccountCode: "TestMerchant" }])),
      [],
    );
    assert.deepEqual(adyen.parseNotification({}, notification([authorisation({ merchantAccountCode: "SomeoneElse" })])), []);
  });

  it("answers [accepted] as text", () => {
    assert.deepEqual(adyen.notificationAnswer, { contentType: "text/plain; charset=utf-8", body: "[accepted]" });
  });
});

describe("Adyen's session result, read", () => {
  const answering = (answer: object, calls: string[] = []) =>
    new AdyenProcessor(CONFIG, {
      fetch: async (url) => {
        calls.push(String(url));
        return new Response(JSON.stringify(answer), { status: 200, headers: { "content-type": "application/json" } });
      },
    });
  const attempt = (query?: string) => ({
    checkoutReference: "chk_1",
    processorReference: "CS0000000000000001",
    ...(query === undefined ? {} : { returnQuery: new URLSearchParams(query) }),
  });

  it("without the return's sessionResult, Adyen is not asked: the page is open until the notification", async () => {
    const calls: string[] = [];
    assert.deepEqual(await answering({}, calls).readOutcome(attempt()), { kind: "open" });
    assert.deepEqual(await answering({}, calls).readOutcome(attempt("sessionId=CS0000000000000001")), { kind: "open" });
    assert.deepEqual(calls, []);
  });

  it("asks Adyen's test host for the attempt's own session with the sessionResult, whatever session the query names", async () => {
    const calls: string[] = [];
    const adyen = answering({ id: "CS0000000000000001", status: "active" }, calls);
    await adyen.readOutcome(attempt("sessionId=CSOTHER&sessionResult=abc%2B%3D"));
    assert.deepEqual(calls, ["https://checkout-test.adyen.com/v71/sessions/CS0000000000000001?sessionResult=abc%2B%3D"]);
  });

  it("maps the session's status", async () => {
    const read = (answer: object) => answering({ ...answer, id: "CS0000000000000001" }).readOutcome(attempt("sessionResult=x"));
    const paid = await read({
      status: "completed",
      payments: [{ pspReference: "PSP0000000000001", resultCode: "Authorised", paymentMethod: { brand: "visa", type: "scheme" } }],
    });
    assert.equal(paid.kind, "approved");
    assert.equal(paid.kind === "approved" && paid.payfacReference, "PSP0000000000001");
    assert.equal(paid.kind === "approved" && paid.card.brand, "VI");
    assert.deepEqual(await read(ADYEN_EXAMPLES["GET /v71/sessions/{sessionId} 200"]), { kind: "open" }, "completed, no pspReference");
    for (const status of ["active", "paymentPending"]) assert.deepEqual(await read({ status }), { kind: "open" }, status);
    for (const status of ["canceled", "expired", "refused"]) assert.deepEqual(await read({ status }), { kind: "expired" }, status);
  });

  it("refuses an answer about another session", async () => {
    await assert.rejects(answering({ id: "CSOTHER", status: "completed" }).readOutcome(attempt("sessionResult=x")), /not the attempt's/);
  });

  it("a live terminal calls its own live host", async () => {
    const calls: string[] = [];
    const live = new AdyenProcessor(
      { ...CONFIG, environment: "live", liveEndpointUrlPrefix: "1797a841fbb37ca7-KaffiEhf" },
      {
        fetch: async (url) => {
          calls.push(String(url));
          return new Response(JSON.stringify({ id: "CS0000000000000001", status: "active" }), { status: 200 });
        },
      },
    );
    await live.readOutcome(attempt("sessionResult=x"));
    assert.match(calls[0]!, /^https:\/\/1797a841fbb37ca7-KaffiEhf-checkout-live\.adyenpayments\.com\/checkout\/v71\/sessions\//);
  });

  it("the checkout's form may lead to Adyen's page origin of the terminal's environment, or to a simulator's", () => {
    assert.equal(hostedPageOrigin("adyen", { environment: "test", baseUrl: null }), "https://checkoutshopper-test.adyen.com");
    assert.equal(hostedPageOrigin("adyen", { environment: "live", baseUrl: null }), "https://checkoutshopper-live.adyen.com");
    assert.equal(hostedPageOrigin("adyen", { environment: "test", baseUrl: "http://127.0.0.1:4010" }), "http://127.0.0.1:4010");
  });

  it("a saved card's shopper is the attempt's own, the same on every retry", () => {
    assert.equal(adyenShopperReference("chk_1"), adyenShopperReference("chk_1"));
    assert.notEqual(adyenShopperReference("chk_1"), adyenShopperReference("chk_2"));
  });
});

describe("the fake's check of Adyen's published schemas", () => {
  const session = CHECKOUT_SCHEMAS.operations["POST /v71/sessions"]!.requestBody!;
  const valid = {
    merchantAccount: "TestMerchant",
    amount: { value: 48900, currency: "ISK" },
    reference: "chk_1",
    returnUrl: "https://pay.example.is/pay/x/return/chk_1",
    mode: "hosted",
    expiresAt: "2026-08-01T12:15:00.000Z",
  };

  it("takes the published example and a hosted session", () => {
    assert.deepEqual(
      schemaErrors(session, { merchantAccount: "M", amount: { value: 100, currency: "EUR" }, returnUrl: "x", reference: "r" }),
      [],
    );
    assert.deepEqual(schemaErrors(session, valid), []);
  });

  it("refuses unknown properties, wrong types, missing fields and values outside an enum", () => {
    assert.match(schemaErrors(session, { ...valid, surprise: 1 }).join(), /surprise: unknown property/);
    assert.match(
      schemaErrors(session, { ...valid, amount: { value: "48900", currency: "ISK" } }).join(),
      /amount.value: must be an integer/,
    );
    assert.match(schemaErrors(session, { ...valid, amount: { value: 1, currency: "ISKR" } }).join(), /longer than 3/);
    assert.match(schemaErrors(session, { ...valid, reference: undefined, merchantAccount: 5 }).join(), /merchantAccount: must be a string/);
    assert.match(schemaErrors(session, { ...valid, mode: "popup" }).join(), /mode: not one of/);
    assert.match(schemaErrors(session, { ...valid, expiresAt: "tomorrow" }).join(), /expiresAt: not a date-time/);
    const { reference: _, ...withoutReference } = valid;
    assert.match(schemaErrors(session, withoutReference).join(), /reference: missing/);
  });
});

describe("Adyen's modification and dispute notifications, read", () => {
  const adyen = new AdyenProcessor(CONFIG);
  const published = (eventCode: string, overrides: Record<string, any> = {}) => {
    const { additionalData, ...item } = ADYEN_EXAMPLES[eventCode].notificationItems[0].NotificationRequestItem;
    const { hmacSignature: _, ...data } = additionalData ?? {};
    return { ...item, additionalData: data, merchantAccountCode: "TestMerchant", ...overrides };
  };
  const read = (item: Record<string, any>) => adyen.parseNotification({}, notification([item]))!;

  it("a modification's result names Adyen's reference, Paylink's (echoed as merchantReference) and the payment", () => {
    assert.deepEqual(read(published("CAPTURE")), [
      {
        modification: {
          processorReference: "QFQTPCQ8HXSKGK82",
          paylinkReference: "YOUR_MERCHANT_REFERENCE",
          originalPayfacReference: "9913140798220028",
          succeeded: true,
          reason: "",
        },
      },
    ]);
    // Adyen's published REFUND example is a failed one.
    const [refund] = read(published("REFUND")) as any[];
    assert.deepEqual(
      [refund.modification.succeeded, refund.modification.reason],
      [false, "Transaction hasn't been captured, refund not possible"],
    );
    for (const eventCode of ["CANCEL_OR_REFUND", "AUTHORISATION_ADJUSTMENT"]) {
      assert.equal((read(published(eventCode))[0] as any).modification.succeeded, true, eventCode);
    }
    assert.equal((read(published("CANCEL_OR_REFUND", { eventCode: "CANCELLATION" }))[0] as any).modification.succeeded, true);
  });

  it("REFUND_FAILED, REFUNDED_REVERSED and CAPTURE_FAILED are failures, though Adyen sends success true", () => {
    for (const eventCode of ["REFUND_FAILED", "REFUNDED_REVERSED", "CAPTURE_FAILED"]) {
      const [failed] = read(published(eventCode)) as any[];
      assert.equal(published(eventCode).success, "true");
      assert.equal(failed.modification.succeeded, false, eventCode);
      assert.ok(failed.modification.reason, eventCode);
    }
  });

  it("each dispute event is a step of the dispute Adyen's pspReference names, on the payment its originalReference names", () => {
    const expected: Record<string, string> = {
      NOTIFICATION_OF_FRAUD: "Open",
      REQUEST_FOR_INFORMATION: "Open",
      NOTIFICATION_OF_CHARGEBACK: "Open",
      CHARGEBACK: "Open",
      INFORMATION_SUPPLIED: "Open",
      CHARGEBACK_REVERSED: "Won",
      PREARBITRATION_WON: "Won",
      SECOND_CHARGEBACK: "Lost",
      PREARBITRATION_LOST: "Lost",
      DISPUTE_DEFENSE_PERIOD_ENDED: "Lost",
    };
    const steps = new Set<string>();
    for (const [eventCode, status] of Object.entries(expected)) {
      // Some published examples lack originalReference (Adyen sends it when the account asks for it): given here.
      const [step] = read(published(eventCode, { originalReference: "9913140798220028", pspReference: "DISPUTE000000001" })) as any[];
      assert.equal(step.dispute.status, status, eventCode);
      assert.equal(step.dispute.disputeReference, "DISPUTE000000001");
      assert.equal(step.dispute.payfacReference, "9913140798220028");
      assert.equal(step.dispute.processorEvent, eventCode);
      steps.add(step.dispute.eventReference);
    }
    assert.equal(steps.size, Object.keys(expected).length, "every step its own eventReference");
  });

  it("reads the amount in Paylink's units, the scheme's reason, the event's date, and disputeStatus over the event's default", () => {
    const [chargeback] = read(
      published("CHARGEBACK", {
        amount: { value: 150000, currency: "IDR" },
        additionalData: { chargebackReasonCode: " 4853", disputeStatus: "Accepted" },
      }),
    ) as any[];
    assert.deepEqual(chargeback.dispute.amount, { value: 15000000, currency: "IDR" });
    assert.equal(chargeback.dispute.reason, "4853: Payment.TxId=300000000524534724 dispute");
    assert.equal(chargeback.dispute.status, "Lost", "accepted by the merchant");
    assert.deepEqual(chargeback.dispute.occurredAt, new Date("2021-01-01T00:00:00Z"));
    const [second] = read(published("SECOND_CHARGEBACK", { originalReference: "9913140798220028" })) as any[];
    assert.equal(second.dispute.reason, "502:Cardmember Dispute", "the code not repeated");
    // The same step sent again is the same step.
    const again = read(published("CHARGEBACK", { additionalData: {} }))[0] as any;
    assert.equal(again.dispute.eventReference, (read(published("CHARGEBACK"))[0] as any).dispute.eventReference);
  });

  it("a dispute event without the disputed payment's reference cannot be placed and is left out", () => {
    assert.deepEqual(read(published("CHARGEBACK_REVERSED")), []);
  });
});

describe("after the sale through Adyen, against the fake", () => {
  let adyen: FakeAdyen;
  let processor: AdyenProcessor;
  before(async () => {
    adyen = await startFakeAdyen();
    adyen.autoNotifications = false;
    processor = new AdyenProcessor({ ...CONFIG, apiKey: adyen.apiKey, merchantAccount: adyen.merchantAccount, baseUrl: adyen.baseUrl });
  });
  after(() => adyen?.close());

  /** A card saved on the fake's page by a tokenize attempt: Paylink's token for it. */
  const savedCard = async (checkoutReference = `chk${Date.now()}${Math.random().toString(36).slice(2, 8)}`) => {
    const started = await processor.startHostedPayment(
      hostedRequest({ checkoutReference, kind: "tokenization", amount: 0, saveCard: true }),
    );
    await payOnFake(started.redirectUrl);
    const session = adyen.sessions.get(started.processorReference)!;
    return { token: adyenToken(session.storedPaymentMethodId!, checkoutReference), session, checkoutReference };
  };
  const chargeRequest = (token: string, overrides: Record<string, unknown> = {}) => ({
    token,
    card: { brand: "VI", masked: "411111******1111", last4: "1111", expiry: "03/2030", usage: "Credit" },
    amount: 129900,
    currency: "ISK",
    recurringProcessingModel: "Subscription" as const,
    checkoutReference: `tok${Math.random().toString(36).slice(2, 14)}`,
    merchantReference: "order-1",
    returnUrl: "https://shop.example/return",
    ...overrides,
  });
  const lastRequest = (route: string) => adyen.requests.filter((request) => request.route === route).at(-1)!;

  it("a session with manual capture, a delay or a pre-authorisation asks Adyen for it", async () => {
    await processor.startHostedPayment(hostedRequest({ capture: { manual: true, hoursDelay: null, preAuth: true } }));
    const manual = JSON.parse(lastRequest("POST /v71/sessions").body);
    assert.deepEqual(manual.additionalData, { manualCapture: "true", authorisationType: "PreAuth" });
    assert.equal(manual.captureDelayHours, undefined);
    await processor.startHostedPayment(hostedRequest({ capture: { manual: false, hoursDelay: 48, preAuth: false } }));
    const delayed = JSON.parse(lastRequest("POST /v71/sessions").body);
    assert.deepEqual([delayed.captureDelayHours, delayed.additionalData], [48, undefined]);
    await processor.startHostedPayment(hostedRequest({}));
    const plain = JSON.parse(lastRequest("POST /v71/sessions").body);
    assert.deepEqual([plain.captureDelayHours, plain.additionalData], [undefined, undefined]);
  });

  it("charges a saved card with its stored method, under the shopper it was stored for (ContAuth, keyed by the payment)", async () => {
    const saved = await savedCard();
    const request = chargeRequest(saved.token);
    const result = await processor.chargeToken(request);
    assert.equal(result.approved, true);
    assert.equal(result.approved === true && result.authCode, "044925");
    const sent = lastRequest("POST /v71/payments");
    assert.equal(sent.idempotencyKey, request.checkoutReference);
    assert.deepEqual(JSON.parse(sent.body), {
      merchantAccount: adyen.merchantAccount,
      amount: { value: 129900, currency: "ISK" },
      reference: request.checkoutReference,
      paymentMethod: { type: "scheme", storedPaymentMethodId: saved.session.storedPaymentMethodId },
      shopperReference: adyenShopperReference(saved.checkoutReference),
      shopperInteraction: "ContAuth",
      recurringProcessingModel: "Subscription",
      returnUrl: "https://shop.example/return",
    });
    // The published example of a subscription charge has the same fields.
    assert.deepEqual(
      Object.keys(JSON.parse(sent.body)).sort(),
      Object.keys(ADYEN_EXAMPLES["POST /v71/payments subscription-payment"]).sort(),
    );
  });

  it("wants the shopper: RedirectShopper with a GET redirect becomes the shopper's address", async () => {
    const saved = await savedCard();
    adyen.requireShopperFor(saved.session.storedPaymentMethodId!);
    const result = await processor.chargeToken(chargeRequest(saved.token));
    assert.equal(result.approved, "shopper");
    assert.match(result.approved === "shopper" ? result.redirectUrl : "", /\/checkoutshopper\/threeDS\/redirect\//);
  });

  it("reads Refused as a decline and a stored card Adyen does not know as a refusal that charged nothing", async () => {
    const answering = (status: number, body: object) =>
      new AdyenProcessor(CONFIG, { fetch: async () => new Response(JSON.stringify(body), { status }) });
    const refused = await answering(200, {
      resultCode: "Refused",
      pspReference: "PSP0000000000009",
      refusalReason: "Not enough balance",
    }).chargeToken(chargeRequest("M5N7TQ4TG5PFWR50.chk_1"));
    assert.deepEqual([refused.approved, refused.approved === false && refused.reason], [false, "Not enough balance"]);
    await assert.rejects(
      answering(200, { resultCode: "Pending", pspReference: "PSP0000000000009" }).chargeToken(chargeRequest("M5N7TQ4TG5PFWR50.chk_1")),
    );
    await assert.rejects(
      answering(200, { resultCode: "RedirectShopper", action: { type: "redirect", method: "POST", url: "https://x" } }).chargeToken(
        chargeRequest("M5N7TQ4TG5PFWR50.chk_1"),
      ),
      /cannot forward/,
    );
    const unknownCard = chargeRequest(adyenToken("NOSUCHCARD000000", "chk_1"));
    await assert.rejects(processor.chargeToken(unknownCard), (error: any) => error.status === 422);
    // Nothing charged, so nothing to reverse.
    await processor.reverseCharge(unknownCard.checkoutReference, unknownCard);
    await assert.rejects(processor.chargeToken(chargeRequest("not-an-adyen-token")), AdyenUnsendableError);
  });

  it("a charge whose answer was lost is sent again under its key, and the approval Adyen names is reversed", async () => {
    const saved = await savedCard();
    const request = chargeRequest(saved.token);
    adyen.loseNextAnswer(/^\/v71\/payments$/);
    await assert.rejects(processor.chargeToken(request));
    const charged = [...adyen.payments.values()].find((payment) => payment.reference === request.checkoutReference)!;
    assert.ok(charged, "Adyen did charge");
    await processor.reverseCharge(request.checkoutReference, request);
    const reversal = lastRequest("POST /v71/payments/{paymentPspReference}/reversals");
    assert.equal(reversal.path, `/v71/payments/${charged.pspReference}/reversals`);
    assert.equal(reversal.idempotencyKey, `reverse-${request.checkoutReference}`);
    assert.equal(
      adyen.requests.filter((sent) => sent.route === "POST /v71/payments" && sent.idempotencyKey === request.checkoutReference).length,
      2,
    );
    assert.equal(
      [...adyen.payments.values()].filter((payment) => payment.reference === request.checkoutReference).length,
      1,
      "charged once",
    );
    await assert.rejects(processor.reverseCharge(request.checkoutReference), /without its request/);
  });

  it("refund, reversal, capture and amount update: received with Adyen's own reference, under Paylink's key", async () => {
    const saved = await savedCard();
    const charged = await processor.chargeToken(chargeRequest(saved.token));
    const psp = charged.approved === true ? charged.payfacReference : "";
    const calls = [
      ["refunds", (request: any) => processor.refund(request)],
      ["reversals", (request: any) => processor.cancelOrRefund(request)],
      ["captures", (request: any) => processor.capture(request)],
      ["amountUpdates", (request: any) => processor.adjustAuthorisation(request)],
    ] as const;
    for (const [kind, call] of calls) {
      const modificationReference = `MOD${kind.toUpperCase()}`.slice(0, 16);
      const result = await call({ modificationReference, originalPayfacReference: psp, amount: 10000, currency: "ISK" });
      const made = adyen.modifications.at(-1)!;
      assert.deepEqual(result, { accepted: "received", processorReference: made.pspReference }, kind);
      const sent = lastRequest(`POST /v71/payments/{paymentPspReference}/${kind}`);
      assert.equal(sent.idempotencyKey, modificationReference);
      const body = JSON.parse(sent.body);
      assert.equal(body.reference, modificationReference);
      assert.deepEqual(body.amount, kind === "reversals" ? undefined : { value: 10000, currency: "ISK" }, kind);
    }
  });

  it("a refusal Adyen states at once is final; a fault, a throttle or a retry in progress is an unknown outcome", async () => {
    adyen.refuseNext(/\/refunds$/, "Invalid amount specified");
    const saved = await savedCard();
    const charged = await processor.chargeToken(chargeRequest(saved.token));
    const request = {
      modificationReference: "REFUSED000000001",
      originalPayfacReference: charged.approved === true ? charged.payfacReference : "",
      amount: 100,
      currency: "ISK",
    };
    assert.deepEqual(await processor.refund(request), { accepted: false, reason: "Invalid amount specified" });
    const answering = (status: number, body: object) =>
      new AdyenProcessor(CONFIG, { fetch: async () => new Response(JSON.stringify(body), { status }) });
    for (const [status, body] of [
      [500, { status: 500, errorCode: "905", message: "Payment details are not supported" }],
      [429, { status: 429, errorCode: "000", message: "Too many requests" }],
      [401, { status: 401, errorCode: "000", message: "Unauthorized" }],
      [422, { status: 422, errorCode: "704", message: "request already processed or in progress" }],
      [201, { status: "pending" }],
    ] as const) {
      await assert.rejects(answering(status, body).refund(request), String(status));
    }
    assert.deepEqual(await processor.refund({ ...request, currency: "IDR", amount: 150050 }), {
      accepted: false,
      reason: "Amount not valid for Adyen",
    });
  });

  it("every request the adapter sent, Adyen's published schema accepts", () => {
    for (const request of adyen.requests.filter((sent) => sent.status < 400)) {
      assert.deepEqual(request.errors, [], `${request.route}: ${request.errors.join("; ")}`);
      assert.deepEqual(request.answerErrors, [], `the fake's answer to ${request.route}: ${request.answerErrors.join("; ")}`);
    }
  });

  function hostedRequest(overrides: Partial<HostedPaymentRequest>): HostedPaymentRequest {
    return {
      checkoutReference: `chk${Math.random().toString(36).slice(2, 14)}`,
      kind: "payment",
      amount: 48900,
      currency: "ISK",
      saveCard: false,
      recurringProcessingModel: null,
      returnUrl: "https://pay.example/return",
      cancelUrl: "https://pay.example/pay",
      expiresAt: new Date(Date.now() + 15 * 60_000),
      culture: "en",
      capture: null,
      items: [],
      ...overrides,
    };
  }

  async function payOnFake(url: string): Promise<void> {
    const paid = await fetch(url, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ cardNumber: ADYEN_TEST_CARDS.approved }).toString(),
    });
    assert.equal(paid.status, 303);
  }
});
