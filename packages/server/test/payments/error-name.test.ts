// What the payment code logs of an error: its name and message with every digit masked.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { errorName } from "../../src/payments/error-name.ts";

describe("logging errors", () => {
  it("masks digits, so a card number or CVC in an error message never reaches a log", () => {
    assert.equal(errorName(new Error("card 4111111111111111 cvc 737 refused")), "Error: card # cvc # refused");
  });
});
