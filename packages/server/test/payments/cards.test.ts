// The card helpers every payment uses: the Luhn check, the mask that is all a log or a webhook
// ever shows of a number, and the brand read from the number.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cardBrand, luhnValid, maskCardNumber } from "../../src/payments/cards.ts";

describe("card helpers", () => {
  it("checks Luhn", () => {
    for (const good of ["4111111111111111", "5555555555554444", "4000000000000002", "378282246310005", "79927398713"])
      assert.equal(luhnValid(good), true, good);
    for (const bad of ["4111111111111112", "1234567812345678", "", "4111-1111"]) assert.equal(luhnValid(bad), false, bad);
  });

  it("masks to at most the first six and last four digits", () => {
    assert.equal(maskCardNumber("4111111111111111"), "411111******1111");
    assert.equal(maskCardNumber("4111111111111111111"), "411111*********1111");
    assert.equal(maskCardNumber("378282246310005"), "378282*****0005");
    assert.equal(maskCardNumber("411111111119"), "4111****1119");
  });

  it("knows the brands of the sandbox cards", () => {
    assert.deepEqual(cardBrand("4111111111111111"), { brand: "VI", paymentMethod: "VI" });
    assert.deepEqual(cardBrand("5555555555554444"), { brand: "MC", paymentMethod: "MC" });
    assert.deepEqual(cardBrand("2223003122003222"), { brand: "MC", paymentMethod: "MC" });
    assert.deepEqual(cardBrand("378282246310005"), { brand: "AX", paymentMethod: "AX" });
  });
});
