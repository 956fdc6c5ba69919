// The Adyen adapter's pure parts: the notification HMAC against Adyen's own published test vectors
// (first, since everything else trusts it), Paylink's amounts in Adyen's minor units, what a
// notification and a session result say, and the fake's schema check itself.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  AdyenAmountError,
  AdyenProcessor,
  adyenExponent,
  adyenItemSignature,
  adyenShopperReference,
  toAdyenAmount,
  verifyNotificationItem,
} from "../../src/payments/adyen.ts";
import { type AdyenConfig, hostedPageOrigin } from "../../src/payments/processor-config.ts";
import { ADYEN_EXAMPLES, CHECKOUT_SCHEMAS, schemaErrors, signItem } from "../support/adyen-fake.ts";

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

  it("a saved card's token comes from tokenization.storedPaymentMethodId or recurring.recurringDetailReference", () => {
    const published = ADYEN_EXAMPLES.AUTHORISATION.notificationItems[0].NotificationRequestItem;
    const [fromExample] = adyen.parseNotification({}, notification([{ ...published, merchantAccountCode: "TestMerchant" }]))!;
    assert.equal((fromExample as any).outcome.token, "M5N7TQ4TG5PFWR50");
    const older = authorisation({ additionalData: { "recurring.recurringDetailReference": "8415718415172200", authCode: "1" } });
    const [fromRecurring] = adyen.parseNotification({}, notification([older]))!;
    assert.equal((fromRecurring as any).outcome.token, "8415718415172200");
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
    const cancel = ADYEN_EXAMPLES.CANCEL_OR_REFUND.notificationItems[0].NotificationRequestItem;
    assert.deepEqual(adyen.parseNotification({}, notification([{ ...cancel, merchantAccountCode: "TestMerchant" }])), []);
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
