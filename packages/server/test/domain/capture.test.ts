// The manual-capture rules at their edges (docs/api.md#capture-and-adjust): what is captured, when
// an authorisation lapses, what a capture, a refund, a reversal and an adjustment may take.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AppError } from "../../src/domain/errors.ts";
import {
  AUTHORISATION_LIFE_MS,
  type AuthorisationBalance,
  authorisationState,
  capturedAmount,
  checkAdjust,
  checkCapture,
  refundableTotal,
  reversalScope,
} from "../../src/domain/payments/capture.ts";

const authorisedAt = new Date("2026-06-01T12:00:00Z");
const at = (ms: number) => new Date(authorisedAt.getTime() + ms);

function balance(overrides: Partial<AuthorisationBalance> = {}): AuthorisationBalance {
  return {
    payfacReference: "PAYMENT000000001",
    currency: "ISK",
    amount: 100000,
    capturedAmount: 0,
    captureReservedAmount: 0,
    refundedAmount: 0,
    reservedAmount: 0,
    authorisedAt,
    autoCaptureAt: null,
    releasedAt: null,
    preAuth: false,
    adjusting: false,
    ...overrides,
  };
}

const code = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof AppError);
    return error.code;
  }
  return "none";
};

describe("manual capture rules", () => {
  test("a manual authorisation lapses exactly 7 days after it was made; a captured one never does", () => {
    assert.equal(authorisationState(balance(), at(AUTHORISATION_LIFE_MS - 1)), "open");
    assert.equal(authorisationState(balance(), at(AUTHORISATION_LIFE_MS)), "lapsed");
    assert.equal(authorisationState(balance({ capturedAmount: 100000 }), at(AUTHORISATION_LIFE_MS * 2)), "captured");
    assert.equal(authorisationState(balance({ releasedAt: at(1) }), at(2)), "released");
  });

  test("a delayed capture takes everything at its time, unless released before; an ordinary payment is captured", () => {
    const delayed = balance({ autoCaptureAt: at(3600_000) });
    assert.equal(capturedAmount(delayed, at(3600_000 - 1)), 0);
    assert.equal(capturedAmount(delayed, at(3600_000)), 100000);
    assert.equal(capturedAmount({ ...delayed, releasedAt: at(1) }, at(7200_000)), 0);
    assert.equal(capturedAmount(balance({ capturedAmount: null }), at(0)), 100000);
    // A delayed capture is the processor's: it does not lapse and cannot be captured by hand.
    assert.equal(authorisationState(delayed, at(AUTHORISATION_LIFE_MS * 2)), "captured");
    assert.equal(
      code(() => checkCapture(delayed, 1, at(0))),
      "3003",
    );
  });

  test("a capture fits what is neither captured nor held by captures in flight", () => {
    const partly = balance({ capturedAmount: 40000, captureReservedAmount: 30000 });
    assert.equal(
      code(() => checkCapture(partly, 30000, at(0))),
      "none",
    );
    assert.equal(
      code(() => checkCapture(partly, 30100, at(0))),
      "2019",
    );
    assert.equal(
      code(() => checkCapture(balance({ capturedAmount: 100000 }), 1, at(0))),
      "3003",
    );
    assert.equal(
      code(() => checkCapture(balance(), 1, at(AUTHORISATION_LIFE_MS))),
      "3003",
    );
    assert.equal(
      code(() => checkCapture(balance({ adjusting: true }), 1, at(0))),
      "3003",
    );
  });

  test("refunds take captured money only; a reversal releases the rest of an open authorisation", () => {
    assert.equal(
      code(() => refundableTotal(balance(), at(0))),
      "3003",
    );
    assert.equal(refundableTotal(balance({ capturedAmount: 25000 }), at(0)), 25000);
    assert.deepEqual(reversalScope(balance({ capturedAmount: 25000 }), at(0)), { total: 100000, release: true });
    assert.deepEqual(reversalScope(balance({ capturedAmount: 25000 }), at(AUTHORISATION_LIFE_MS)), { total: 25000, release: false });
    assert.equal(
      code(() => reversalScope(balance(), at(AUTHORISATION_LIFE_MS))),
      "3003",
    );
    assert.equal(
      code(() => reversalScope(balance({ captureReservedAmount: 1 }), at(0))),
      "3003",
    );
  });

  test("only an open, untouched pre-authorisation is adjusted", () => {
    assert.equal(
      code(() => checkAdjust(balance({ preAuth: true }), at(0))),
      "none",
    );
    assert.equal(
      code(() => checkAdjust(balance(), at(0))),
      "3003",
    );
    assert.equal(
      code(() => checkAdjust(balance({ preAuth: true, capturedAmount: 1 }), at(0))),
      "3003",
    );
    assert.equal(
      code(() => checkAdjust(balance({ preAuth: true }), at(AUTHORISATION_LIFE_MS))),
      "3003",
    );
    assert.equal(
      code(() => checkAdjust(balance({ preAuth: true, adjusting: true }), at(0))),
      "3003",
    );
  });
});
