// The SDK's after-sale methods (chargeToken, refund, reverse, getPayment, disableToken) against
// the real server on every backend: the SDK and the server agree on the wire, and its errors carry
// the server's codes.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { PaylinkApiError, PaylinkClient, type PaymentResultCode, type TokenPaymentResultCode } from "paylink-sdk";
import { NO_BALANCE_CARD, saveCard, sellLink } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";

for (const backend of testBackends()) {
  describe(`SDK after-sale methods against the server (${backend.name})`, () => {
    let server: TestServer;
    let paylink: PaylinkClient;

    before(async () => {
      server = await startTestServer({ backend });
      paylink = new PaylinkClient({ baseUrl: server.baseUrl, apiKey: server.apiKey });
    });
    after(() => server.close());

    const rejectsWith = async (call: Promise<unknown>, status: number, errorCode: string) => {
      await assert.rejects(call, (error: unknown) => {
        assert.ok(error instanceof PaylinkApiError, String(error));
        assert.equal(`${error.status} ${error.errorCode}`, `${status} ${errorCode}`);
        return true;
      });
    };

    it("charges a saved card, refunds part, reverses the rest and reads it all back", async () => {
      const token = await saveCard(server);
      const charge = await paylink.chargeToken(
        {
          terminalIdentifier: server.terminalIdentifier,
          amount: 60000,
          currency: "ISK",
          reference: "sdk-invoice-1",
          tokenDetails: { tokenValue: token, recurringProcessingModel: "Subscription" },
        },
        { idempotencyKey: `sdk-invoice-1-${backend.name}` },
      );
      const resultCode: TokenPaymentResultCode = charge.resultCode;
      assert.equal(resultCode, "Authorised");
      assert.equal(charge.merchantReference, "sdk-invoice-1");

      const refund = await paylink.refund({
        payfacReference: charge.payfacReference,
        amount: 20000,
        currency: "ISK",
        refundReason: "RETURN",
      });
      assert.equal(refund.status, "Received");
      assert.equal(refund.originalPayfacReference, charge.payfacReference);
      const reversal = await paylink.reverse(charge.payfacReference);
      assert.equal(reversal.status, "Received");

      const payment = await paylink.getPayment(charge.payfacReference);
      const code: PaymentResultCode = payment.resultCode;
      assert.equal(code, "Authorised");
      assert.equal(payment.refundedAmount, 60000);
      assert.deepEqual(
        payment.refunds.map((r) => [r.type, r.amount, r.status]),
        [
          ["Refund", 20000, "Succeeded"],
          ["Reversal", 40000, "Succeeded"],
        ],
      );
      await rejectsWith(paylink.refund({ payfacReference: charge.payfacReference, amount: 100, currency: "ISK" }), 400, "2019");
    });

    it("a refused charge resolves with Refused; a disabled card and another merchant's payment reject with their codes", async () => {
      const token = await saveCard(server, NO_BALANCE_CARD);
      const refused = await paylink.chargeToken({
        terminalIdentifier: server.terminalIdentifier,
        amount: 10000,
        currency: "ISK",
        reference: "renewal",
        tokenDetails: { tokenValue: token },
      });
      assert.equal(refused.resultCode, "Refused");
      assert.equal(refused.refusalReason, "Not enough balance");

      await paylink.disableToken(token);
      await paylink.disableToken(token);
      await rejectsWith(
        paylink.chargeToken({
          terminalIdentifier: server.terminalIdentifier,
          amount: 10000,
          currency: "ISK",
          reference: "r",
          tokenDetails: { tokenValue: token },
        }),
        409,
        "3003",
      );

      const { payfacReference } = await sellLink(server, 48900, NO_BALANCE_CARD);
      assert.equal((await paylink.getPayment(payfacReference)).resultCode, "Authorised", "the …0341 card pays a link");
      const other = await server.addMerchant();
      const stranger = new PaylinkClient({ baseUrl: server.baseUrl, apiKey: other.apiKey });
      await rejectsWith(stranger.getPayment(payfacReference), 404, "2014");
      await rejectsWith(stranger.reverse({ payfacReference }), 404, "2014");
      await assert.rejects(paylink.getPayment(""), TypeError);
    });
  });
}
