// Issue #5 acceptance 1 and 2 with real payments through the hosted checkout page, a real
// receiver on 127.0.0.1 and the worker with its real schedule, on both backends.
//   1. success, decline and tokenization: Authorization header, every body field, the HMAC
//      (checked by an independent implementation, itself checked against the independently computed vectors),
//      the Standard Webhooks signature;
//   2. a receiver answering 500 once gets the same webhook-id again about 5 s later.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { verifyPaymentWebhook, verifyStandardWebhook } from "paylink-sdk";
import { WebhookWorker } from "../../src/webhooks/worker.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { CARDS, cardFields, createLink, futureExpiry, pay } from "../support/shopper.ts";
import { waitUntil } from "../support/wait.ts";
import {
  independentPaymentSignature,
  independentStandardSignature,
  type ReceivedRequest,
  type Receiver,
  startReceiver,
  testKeyring,
} from "./support.ts";

const keyring = testKeyring();

test("the independent HMAC implementation reproduces the independently computed test vectors (packages/sdk/test/vectors/webhook-hmac.json)", () => {
  // Copied from docs/webhooks.md#the-hmacsignature (computed with an independent implementation).
  const vectors = [
    {
      hmacKey: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
      message: {
        checkoutReference: "k3j9x0aa21pq",
        payfacReference: "ABCD1234EFGH5678",
        merchantReference: "pl7Qm2xZk9",
        amount: "48900",
        currency: "ISK",
        reason: "123456:1111:03/2030",
        success: "true",
      },
      hmacSignature: "9w/94u5wFCXIMiiBCjruqOrM4R7fWVr61WcFMvSEGuc=",
    },
    {
      hmacKey: "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
      message: {
        checkoutReference: null,
        payfacReference: "Z9Y8X7W6V5U4T3S2",
        merchantReference: null,
        amount: "100",
        currency: "EUR",
        reason: null,
        success: "false",
      },
      hmacSignature: "mcH4MdmvxUCLOZKoPWLKR5bIFQRRVqwiGuUl8FP+s8Q=",
    },
  ];
  for (const vector of vectors) assert.equal(independentPaymentSignature(vector.message, vector.hmacKey), vector.hmacSignature);
});

for (const backend of testBackends()) {
  describe(`payment webhooks from real payments (${backend.name})`, () => {
    let server: TestServer;
    let worker: WebhookWorker;
    let receiver: Receiver;
    let respond: (request: ReceivedRequest, index: number) => { status: number; body?: string } = () => ({ status: 200, body: "ok" });
    let endpoint: { webhookId: string; apiKey: string; hmacKey: string };

    before(async () => {
      receiver = await startReceiver((request, index) => respond(request, index));
      server = await startTestServer({ backend, allowPrivateTargets: true });
      // The worker as `paylink serve` runs it: the real schedule, woken by the payment itself.
      worker = new WebhookWorker({ db: server.db, keyring, allowPrivate: true }).start();
      const response = await fetch(`${server.baseUrl}/admin/v1/merchants/${server.merchantId}/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ url: receiver.url }),
      });
      endpoint = (await response.json()) as typeof endpoint;
      assert.equal(response.status, 200);
    });
    after(async () => {
      await worker.stop(1000);
      await server.close();
      await receiver.close();
    });

    async function submissionsOf(reference: string): Promise<{ checkoutReference: string; completed: boolean; token: string | null }[]> {
      const read = await server.api("GET", `/api/v1/paymentlinks/${reference}`);
      return read.body.paymentLink.submissions;
    }

    function checkSignatures(request: ReceivedRequest, body: Record<string, unknown>) {
      assert.equal(request.headers.authorization, endpoint.apiKey);
      assert.equal(body.hmacSignature, independentPaymentSignature(body, endpoint.hmacKey), "hmacSignature");
      assert.equal(verifyPaymentWebhook(request.body, endpoint.hmacKey).valid, true);
      const id = String(request.headers["webhook-id"]);
      const timestamp = String(request.headers["webhook-timestamp"]);
      assert.match(id, /^msg_[0-9a-f]{32}$/);
      assert.ok(Math.abs(Number(timestamp) - Date.now() / 1000) < 10);
      assert.equal(
        request.headers["webhook-signature"],
        independentStandardSignature(id, timestamp, request.body, endpoint.hmacKey),
        "Standard Webhooks signature",
      );
      assert.equal(verifyStandardWebhook(request.headers, request.body, endpoint.hmacKey).valid, true);
    }

    /** The expiry cardFields() sends, as the webhook writes it (MM/YYYY). */
    const expiry = () => futureExpiry().replace("/", "/20");

    test("a successful payment: Authorization, success true, reason authCode:last4:MM/YYYY, every field signed and checked", async () => {
      const reference = await createLink(server, {
        amount: 489000,
        description: "order 1001",
        returnUrl: "http://localhost/thanks",
      });
      const before = receiver.requests.length;
      const paid = await pay(server.baseUrl, reference, cardFields(CARDS.visa));
      assert.equal(paid.status, 303);
      const request = (await receiver.waitFor(before + 1))[before]!;
      const body = JSON.parse(request.body);
      const authCode = body.additionalData?.authCode;
      assert.match(authCode, /^\d{6}$/);
      assert.match(body.payfacReference, /^[A-Z0-9]{16}$/);
      assert.deepEqual(body, {
        checkoutReference: paid.checkoutReference,
        payfacReference: body.payfacReference,
        merchantReference: reference,
        amount: "489000",
        currency: "ISK",
        reason: `${authCode}:1111:${expiry()}`,
        success: "true",
        hmacSignature: body.hmacSignature,
        additionalData: {
          eventType: "Authorization",
          cardNumber: "411111******1111",
          cardSummary: "1111",
          cardUsage: "Debit",
          cardExpiryDate: expiry(),
          paymentMethod: body.additionalData.paymentMethod,
          threeDAuthenticated: body.additionalData.threeDAuthenticated,
          authCode,
          paymentLinkIdentifier: reference,
          paymentLinkDescription: "order 1001",
        },
      });
      assert.match(body.additionalData.threeDAuthenticated, /^(true|false)$/);
      // docs/checkout.md#sandbox-cards names the brand VI; the checkout sends the method name. Either names the card.
      assert.equal(body.additionalData.paymentMethod, "VI");
      checkSignatures(request, body);
    });

    test("a declined payment: Authorization, success false, reason the decline reason", async () => {
      const reference = await createLink(server, { amount: 250000 });
      const before = receiver.requests.length;
      const declined = await pay(server.baseUrl, reference, cardFields(CARDS.refused));
      assert.equal(declined.status, 402);
      const request = (await receiver.waitFor(before + 1))[before]!;
      const body = JSON.parse(request.body);
      const [submission] = await submissionsOf(reference);
      assert.equal(submission?.completed, false);
      assert.equal(body.checkoutReference, submission.checkoutReference);
      assert.equal(body.merchantReference, reference);
      assert.match(body.payfacReference, /^[A-Z0-9]{16}$/);
      assert.equal(body.amount, "250000");
      assert.equal(body.currency, "ISK");
      assert.equal(body.reason, "Refused");
      assert.equal(body.success, "false");
      assert.equal(body.additionalData.eventType, "Authorization");
      assert.equal(body.additionalData.cardNumber, "400000******0002");
      assert.equal(body.additionalData.cardSummary, "0002");
      assert.equal(body.additionalData.authCode, undefined, "no authCode on a decline");
      assert.equal(body.additionalData.token, undefined);
      assert.equal(body.additionalData.paymentLinkIdentifier, reference);
      checkSignatures(request, body);
    });

    test("a saved card (tokenize link): Tokenization, amount 0, additionalData.token", async () => {
      const reference = await createLink(server, {
        type: "TokenizeByLink",
        returnUrl: "http://localhost/saved",
      });
      const before = receiver.requests.length;
      const saved = await pay(server.baseUrl, reference, cardFields(CARDS.mastercard));
      assert.equal(saved.status, 303);
      const request = (await receiver.waitFor(before + 1))[before]!;
      const body = JSON.parse(request.body);
      const [submission] = await submissionsOf(reference);
      assert.match(submission?.token ?? "", /^[A-Z0-9]{16}$/);
      assert.equal(body.checkoutReference, saved.checkoutReference);
      assert.equal(body.merchantReference, reference);
      assert.equal(body.amount, "0");
      assert.equal(body.success, "true");
      assert.equal(body.additionalData.eventType, "Tokenization");
      assert.equal(body.additionalData.token, submission!.token);
      assert.equal(body.additionalData.cardNumber, "555555******4444");
      assert.equal(body.additionalData.paymentMethod, "MC");
      assert.equal(body.additionalData.cardUsage, "Credit");
      checkSignatures(request, body);
      // Every message of a payment is queued with it; once they are all recorded as delivered and
      // the worker has nothing in flight, nothing more can arrive for it.
      const states = await waitUntil(
        async () => {
          const rows = await server.db
            .selectFrom("webhook_deliveries")
            .select("state")
            .where(sql<string>`payload->>'checkoutReference'`, "=", saved.checkoutReference!)
            .execute();
          return rows.every((row) => row.state === "delivered") && worker.inFlight === 0 && rows.map((row) => row.state);
        },
        10_000,
        "the payment's deliveries recorded and the worker idle",
      );
      assert.deepEqual(states, ["delivered"], "one message queued for one event");
      assert.equal(receiver.requests.length, before + 1, "one message sent for one event");
    });

    test("a pay link that also saves the card sends two messages: Authorization and Tokenization", async () => {
      const reference = await createLink(server, {
        amount: 70000,
        recurringProcessingModel: "CardOnFile",
        returnUrl: "http://localhost/thanks",
      });
      const before = receiver.requests.length;
      const paid = await pay(server.baseUrl, reference, cardFields(CARDS.visa));
      assert.equal(paid.status, 303);
      const requests = (await receiver.waitFor(before + 2)).slice(before);
      const bodies = requests.map((request) => JSON.parse(request.body));
      const byType = Object.fromEntries(bodies.map((body) => [body.additionalData.eventType, body]));
      assert.deepEqual(Object.keys(byType).sort(), ["Authorization", "Tokenization"]);
      assert.notEqual(requests[0]!.headers["webhook-id"], requests[1]!.headers["webhook-id"], "two messages, two ids");
      for (const body of bodies) {
        assert.equal(body.checkoutReference, paid.checkoutReference);
        assert.equal(body.success, "true");
      }
      assert.equal(byType.Authorization.amount, "70000");
      assert.equal(byType.Authorization.additionalData.token, undefined);
      assert.match(byType.Tokenization.additionalData.token, /^[A-Z0-9]{16}$/);
      for (const [index, request] of requests.entries()) checkSignatures(request, bodies[index]);
    });

    test("a receiver that answers 500 once gets the same webhook-id again about 5 s later", async () => {
      const reference = await createLink(server, {
        amount: 10000,
        returnUrl: "http://localhost/thanks",
      });
      const before = receiver.requests.length;
      respond = (_request, index) => (index === before ? { status: 500, body: "try later" } : { status: 200, body: "ok" });
      const paid = await pay(server.baseUrl, reference, cardFields(CARDS.visa));
      assert.equal(paid.status, 303);
      const [first, second] = (await receiver.waitFor(before + 2, 9000)).slice(before);
      assert.ok(first && second);
      assert.equal(second.headers["webhook-id"], first.headers["webhook-id"]);
      assert.equal(second.body, first.body);
      assert.equal(JSON.parse(second.body).checkoutReference, paid.checkoutReference);
      const gap = (second.receivedAt - first.receivedAt) / 1000;
      // 5 s ± 10 % jitter, plus at most one idle poll interval (1 s).
      assert.ok(gap >= 4.4 && gap <= 6.7, `second attempt after ${gap} s`);
      respond = () => ({ status: 200, body: "ok" });
    });
  });
}
