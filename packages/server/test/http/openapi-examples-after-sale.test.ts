// The API reference's after-sale examples are true: the example charge, refund, reverse, disable
// and read, sent to a real server (with this test's own token and payment in place of the
// example's), get answers of the example's shape, and the error examples are the server's errors.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AFTER_SALE_ERRORS, CHARGE_TOKEN } from "../../src/api/openapi-examples-after-sale.ts";
import { saveCard } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { assertError, assertOk } from "../support/fixtures.ts";
import { assertSameShape, documentedServer } from "../support/openapi-examples.ts";

for (const backend of testBackends()) {
  describe(`the API reference's after-sale examples are true (${backend.name})`, () => {
    const served = documentedServer(backend);
    const { example, request } = served;

    it("charge, refund, reverse, read and disable, as the examples show", async () => {
      const { server } = served;
      assert.deepEqual(request("post", "/payment", "subscription"), CHARGE_TOKEN);
      const token = await saveCard(server);
      const body = {
        ...CHARGE_TOKEN,
        terminalIdentifier: server.terminalIdentifier,
        tokenDetails: { ...CHARGE_TOKEN.tokenDetails, tokenValue: token },
      };
      const charged = await server.api("POST", "/api/v1/payment", body);
      assertOk(charged);
      assertSameShape(example("post", "/payment", 200, "authorised"), charged.body);
      const { payfacReference } = charged.body;

      const refund = await server.api("POST", "/api/v1/modification/refund", {
        ...request("post", "/modification/refund", "partial"),
        payfacReference,
      });
      assertOk(refund);
      assertSameShape(example("post", "/modification/refund", 200, "received"), refund.body);
      const tooHigh = await server.api("POST", "/api/v1/modification/refund", {
        ...request("post", "/modification/refund", "partial"),
        payfacReference,
        amount: 129900,
      });
      assertError(tooHigh, 400, "2019");
      assert.equal(tooHigh.body.errorMessage, AFTER_SALE_ERRORS.refundTooHigh.errorMessage.replace("9TX4KD2MQ8RZ6WNB", payfacReference));

      const read = await server.api("GET", `/api/v1/payments/${payfacReference}`);
      assertOk(read);
      assertSameShape(example("get", "/payments/{payfacReference}", 200, "refunded"), read.body);
      assert.equal(read.body.payment.refundedAmount, 100000);

      const reverse = await server.api("POST", "/api/v1/modification/reverse", {
        ...request("post", "/modification/reverse", "reverse"),
        payfacReference,
      });
      assertOk(reverse);
      assertSameShape(example("post", "/modification/reverse", 200, "received"), reverse.body);
      const again = await server.api("POST", "/api/v1/modification/reverse", { payfacReference });
      assertError(again, 409, "3003");
      assert.equal(again.body.errorMessage, AFTER_SALE_ERRORS.fullyRefunded.errorMessage.replace("9TX4KD2MQ8RZ6WNB", payfacReference));

      assertOk(await server.api("POST", "/api/v1/tokens/disable", { tokenValue: token }));
      const disabled = await server.api("POST", "/api/v1/payment", body);
      assertError(disabled, 409, "3003");
      assert.equal(disabled.body.errorMessage, AFTER_SALE_ERRORS.tokenDisabled.errorMessage.replace("K7N2QX9RT4BW8M3C", token));
    });

    it("the not-found examples are the server's answers, message for message", async () => {
      const { server } = served;
      const cases: Array<[string, string, () => Promise<any>]> = [
        [
          "post /payment",
          "tokenNotFound",
          () => server.api("POST", "/api/v1/payment", { ...CHARGE_TOKEN, terminalIdentifier: server.terminalIdentifier }),
        ],
        [
          "post /tokens/disable",
          "tokenNotFound",
          () => server.api("POST", "/api/v1/tokens/disable", request("post", "/tokens/disable", "disable")),
        ],
        ["get /payments/{payfacReference}", "paymentNotFound", () => server.api("GET", "/api/v1/payments/9TX4KD2MQ8RZ6WNB")],
      ];
      for (const [where, name, send] of cases) {
        const [method, path] = where.split(" ") as [string, string];
        const shown = example(method, path, 404, name);
        const response = await send();
        assertError(response, 404, shown.errorCode);
        assert.equal(response.body.errorMessage, shown.errorMessage, `${where} ${name}`);
      }
    });
  });
}
