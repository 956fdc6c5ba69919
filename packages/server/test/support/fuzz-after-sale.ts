// Fuzz models of the after-sale endpoints (POST /payment, /modification/refund,
// /modification/reverse, /tokens/disable), for the generator of fuzz-api.ts: a valid base body each,
// and per field values that break it whatever else the body says. No case may succeed.
import type { Body, EndpointModel, FieldSpec } from "./fuzz-api.ts";

const REFERENCE_INVALID = ["", "r".repeat(201), "bell\u0007", "   ", "line\nbreak"];
const PAYFAC_INVALID = ["", "p".repeat(65), "NOSUCHPAYMENT000"];

export const CHARGE_FIELDS: Record<string, FieldSpec> = {
  terminalIdentifier: { kind: "string", required: true, invalid: ["a".repeat(11), "a".repeat(13), "", "000000000000"] },
  amount: { kind: "integer", required: true, invalid: [0, -1, -100, 100_000_000_100, 1e15] },
  currency: { kind: "string", required: true, invalid: ["XYZ", "EU", "EURO", "", "€€€"] },
  reference: { kind: "string", required: true, invalid: REFERENCE_INVALID },
  tokenDetails: {
    kind: "object",
    required: true,
    invalid: [{}, { tokenValue: "" }, { tokenValue: "NOSUCHTOKEN00000" }, { tokenValue: "t".repeat(65) }, { tokenValue: "A", extra: 1 }],
  },
  shopperIp: { kind: "string", nullable: true, invalid: ["i".repeat(65)] },
  origin: { kind: "string", nullable: true, invalid: ["o".repeat(2049)] },
  channel: { kind: "string", nullable: true, invalid: ["c".repeat(65)] },
  returnUrl: { kind: "string", nullable: true, invalid: ["u".repeat(2049)] },
};

export const REFUND_FIELDS: Record<string, FieldSpec> = {
  payfacReference: { kind: "string", required: true, invalid: PAYFAC_INVALID },
  amount: { kind: "integer", required: true, invalid: [0, -1, -100, 100_000_000_100, 1e15] },
  currency: { kind: "string", required: true, invalid: ["XYZ", "EU", "", "EUR", "usd"] },
  reference: { kind: "string", nullable: true, invalid: REFERENCE_INVALID },
  refundReason: { kind: "string", nullable: true, invalid: ["Because", "other", "", "CUSTOMER_REQUEST"] },
};

export const REVERSE_FIELDS: Record<string, FieldSpec> = {
  payfacReference: REFUND_FIELDS.payfacReference!,
  reference: REFUND_FIELDS.reference!,
};

export const DISABLE_TOKEN_FIELDS: Record<string, FieldSpec> = {
  tokenValue: { kind: "string", required: true, invalid: ["", "t".repeat(65), "NOSUCHTOKEN00000"] },
};

export function chargeModel(terminalIdentifier: string, token: string): EndpointModel {
  return {
    fields: CHARGE_FIELDS,
    ignored: [],
    base(r) {
      const body: Body = {
        terminalIdentifier,
        amount: 100 * (1 + r.int(1000)),
        currency: "ISK",
        reference: `order-${r.int(1e6)}`,
        tokenDetails: {
          tokenValue: token,
          ...(r.chance(0.5) ? { recurringProcessingModel: r.pick(["CardOnFile", "Subscription", null]) } : {}),
        },
      };
      if (r.chance(0.5)) Object.assign(body, { shopperIp: "203.0.113.7", origin: "https://shop.example", channel: "Web" });
      if (r.chance(0.3)) body.returnUrl = "https://shop.example/return";
      return body;
    },
  };
}

/** A refund of part of a payment of `amount` ISK, or (when asked) of more than it. */
export function refundModel(payfacReference: string, amount: number): EndpointModel {
  const fields = {
    ...REFUND_FIELDS,
    amount: { ...REFUND_FIELDS.amount!, invalid: [...REFUND_FIELDS.amount!.invalid!, amount + 1, amount * 10] },
  };
  return {
    fields,
    ignored: [],
    base(r) {
      const body: Body = { payfacReference, amount: 1 + r.int(amount), currency: r.pick(["ISK", "isk"]) };
      if (r.chance(0.4)) body.reference = `return-${r.int(1e6)}`;
      if (r.chance(0.4)) body.refundReason = r.pick(["OTHER", "RETURN", "DUPLICATE", "FRAUD", "CUSTOMER REQUEST", null]);
      return body;
    },
  };
}

export function reverseModel(payfacReference: string): EndpointModel {
  return {
    fields: REVERSE_FIELDS,
    ignored: [],
    base(r) {
      return r.chance(0.5) ? { payfacReference, reference: `cancel-${r.int(1e6)}` } : { payfacReference };
    },
  };
}

export function disableTokenModel(token: string): EndpointModel {
  return { fields: DISABLE_TOKEN_FIELDS, ignored: [], base: () => ({ tokenValue: token }) };
}
