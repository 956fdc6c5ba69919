// The wire format of the after-sale operations (docs/api.md#saved-cards-and-refunds): the request
// bodies the live gateway's e-commerce plugins send, and Paylink's answers.
import Type from "typebox";
import { MAX_AMOUNT, RECURRING_PROCESSING_MODELS } from "../domain/links/types.ts";
import { REFUND_REASONS } from "../domain/payments/rules.ts";

const Envelope = {
  responseDateTime: Type.String({ description: "ISO 8601 UTC time of the response." }),
  responseIdentifier: Type.String({ description: "UUID of this response." }),
};

const StringEnum = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...(description ? { description } : {}) });

/** Optional, and null means absent (plugins send null for what they do not have). */
const OptionalText = (maxLength: number, description: string) =>
  Type.Optional(Type.Unsafe<string | null>({ type: ["string", "null"], maxLength, description }));

const PayfacReference = Type.String({ minLength: 1, maxLength: 64, description: "The processor's reference of the payment." });
const Currency = Type.String({ minLength: 3, maxLength: 3, description: "ISO 4217 code (any letter case)." });
const MerchantReference = Type.String({ minLength: 1, maxLength: 200, description: "Your own reference: 1–200 printable characters." });

export const RESULT_CODES = ["Authorised", "Refused", "RedirectShopper"] as const;
export const PAYMENT_RESULT_CODES = ["Authorised", "Refused", "Pending", "Cancelled"] as const;
export const REFUND_STATUSES = ["Pending", "Succeeded", "Failed"] as const;

export const ChargeTokenBody = Type.Object(
  {
    terminalIdentifier: Type.String({ minLength: 12, maxLength: 12, description: "A terminal of yours." }),
    amount: Type.Integer({ maximum: MAX_AMOUNT, description: "Minor units, > 0 (ISK: ends in 00)." }),
    currency: Currency,
    reference: MerchantReference,
    tokenDetails: Type.Object(
      {
        tokenValue: Type.String({ minLength: 1, maxLength: 64, description: "The saved card's token." }),
        recurringProcessingModel: Type.Optional(
          Type.Unsafe<(typeof RECURRING_PROCESSING_MODELS)[number] | null>({
            type: ["string", "null"],
            enum: [...RECURRING_PROCESSING_MODELS, null],
            description: "Default: the model the card was saved with.",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    shopperIp: OptionalText(64, "Stored as given."),
    origin: OptionalText(2048, "Stored as given."),
    channel: OptionalText(64, "Stored as given (Web, iOS, Android…)."),
    returnUrl: OptionalText(2048, "Stored as given; the sandbox never asks for 3-D Secure, so no shopper is sent there."),
  },
  { additionalProperties: false },
);

export const ChargeTokenResponse = Type.Object({
  resultCode: StringEnum(
    RESULT_CODES,
    "Authorised or Refused, both HTTP 200; RedirectShopper when the card processor wants the shopper first (3-D Secure): the result comes as the Authorization webhook.",
  ),
  payfacReference: Type.String(),
  checkoutReference: Type.String({ description: "This payment's own checkoutReference." }),
  merchantReference: Type.String({ description: "Your reference, as sent." }),
  amount: Type.Integer(),
  currency: Type.String(),
  refusalReason: Type.Optional(Type.String({ description: "Only when Refused, e.g. Not enough balance." })),
  redirect: Type.Optional(
    Type.Object({
      url: Type.String({ description: "Send the shopper here: Paylink forwards them to the processor's authentication page." }),
      method: Type.Literal("GET"),
    }),
  ),
  additionalData: Type.Object({
    cardNumber: Type.String({ description: "Masked card number." }),
    cardSummary: Type.String({ description: "Last four digits." }),
    paymentMethod: Type.String({ description: "Card brand code: VI, MC…" }),
    cardUsage: Type.String({ description: "Debit or Credit." }),
    authCode: Type.Optional(Type.String({ description: "Only when Authorised." })),
  }),
  ...Envelope,
});

export const RefundBody = Type.Object(
  {
    payfacReference: PayfacReference,
    amount: Type.Integer({ maximum: MAX_AMOUNT, description: "Minor units, > 0 (ISK: ends in 00); at most what is left to refund." }),
    currency: Currency,
    reference: Type.Optional(Type.Unsafe<string | null>({ type: ["string", "null"], minLength: 1, maxLength: 200 })),
    refundReason: Type.Optional(
      Type.Unsafe<(typeof REFUND_REASONS)[number] | null>({ type: ["string", "null"], enum: [...REFUND_REASONS, null] }),
    ),
  },
  { additionalProperties: false },
);

export const ReverseBody = Type.Object(
  {
    payfacReference: PayfacReference,
    reference: Type.Optional(Type.Unsafe<string | null>({ type: ["string", "null"], minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

/** Minor units as an integer or a string of digits (`"48900"`), as on the session endpoints. */
const WireAmount = (description: string) => Type.Unsafe<number | string>({ type: ["integer", "string"], maxLength: 20, description });

export const CaptureBody = Type.Object(
  {
    reference: Type.Optional(
      Type.Unsafe<string | null>({ type: ["string", "null"], minLength: 1, maxLength: 200, description: "Your reference (the order id)." }),
    ),
    payfacReference: PayfacReference,
    amount: WireAmount("Minor units to capture, > 0; at most what is left of the authorisation."),
    currency: Currency,
  },
  { additionalProperties: false },
);

export const AdjustBody = Type.Object(
  {
    reference: Type.Optional(
      Type.Unsafe<string | null>({ type: ["string", "null"], minLength: 1, maxLength: 200, description: "Your reference (the order id)." }),
    ),
    payfacReference: PayfacReference,
    amount: WireAmount("The new authorised total in minor units, > 0."),
    currency: Currency,
  },
  { additionalProperties: false },
);

export const ModificationResponse = Type.Object({
  payfacReference: Type.String({ description: "The refund's (capture's, adjustment's) own reference." }),
  originalPayfacReference: Type.String(),
  status: Type.Unsafe<"Received">({
    type: "string",
    enum: ["Received"],
    description: "The result arrives as a Refund (Capture, Adjustment) webhook.",
  }),
  ...Envelope,
});

export const DisableTokenBody = Type.Object(
  { tokenValue: Type.String({ minLength: 1, maxLength: 64, description: "The saved card's token." }) },
  { additionalProperties: false },
);

export const PaymentParams = Type.Object({ payfacReference: Type.String({ minLength: 1 }) });

export const RefundEntry = Type.Object({
  payfacReference: Type.String(),
  type: StringEnum(["Refund", "Reversal"] as const),
  amount: Type.Integer(),
  reason: Type.Unsafe<string | null>({
    type: ["string", "null"],
    description: "The refundReason sent, or the processor's reason for a failure.",
  }),
  reference: Type.Unsafe<string | null>({ type: ["string", "null"], description: "Your reference of the refund." }),
  status: StringEnum(REFUND_STATUSES, "Pending until the processor's final answer."),
  createdAt: Type.String(),
});

export const CAPTURE_STATUSES = ["Reserved", "Approved", "Declined", "Unknown"] as const;

export const CaptureEntry = Type.Object({
  payfacReference: Type.String({ description: "The capture's own reference." }),
  amount: Type.Integer(),
  status: StringEnum(CAPTURE_STATUSES, "Reserved until the processor answers; Unknown: asked, no answer yet (asked again)."),
  created: Type.String(),
});

export const DISPUTE_STATUSES = ["Open", "Won", "Lost"] as const;

export const DisputeEntry = Type.Object({
  disputeReference: Type.String({ description: "The processor's reference of the dispute." }),
  status: StringEnum(DISPUTE_STATUSES, "Open: the merchant may defend it; Won or Lost once the processor closes it."),
  processorEvent: Type.String({
    description: "The processor's name of its latest step (NOTIFICATION_OF_CHARGEBACK, charge.dispute.closed…).",
  }),
  amount: Type.Unsafe<number | null>({
    type: ["integer", "null"],
    description: "What is disputed, in minor units; null when the processor did not say.",
  }),
  currency: Type.Unsafe<string | null>({ type: ["string", "null"] }),
  reason: Type.String({ description: "The card scheme's reason, as the processor gave it." }),
  openedAt: Type.String(),
  updatedAt: Type.String(),
});

export const Payment = Type.Object({
  payfacReference: Type.String(),
  checkoutReference: Type.String(),
  merchantReference: Type.String({ description: "Your reference (token payment) or the paymentLinkReference (link sale)." }),
  paymentLinkReference: Type.Unsafe<string | null>({ type: ["string", "null"] }),
  amount: Type.Integer(),
  currency: Type.String(),
  resultCode: StringEnum(PAYMENT_RESULT_CODES),
  refusalReason: Type.Unsafe<string | null>({ type: ["string", "null"] }),
  cardNumber: Type.Unsafe<string | null>({ type: ["string", "null"], description: "Masked card number." }),
  cardSummary: Type.Unsafe<string | null>({ type: ["string", "null"] }),
  paymentMethod: Type.Unsafe<string | null>({ type: ["string", "null"] }),
  createdAt: Type.String(),
  refundedAmount: Type.Integer({ description: "The sum of the refunds that succeeded." }),
  refunds: Type.Array(RefundEntry),
  isManualCapture: Type.Optional(Type.Boolean({ description: "Authorised for manual capture (a session with isManualCapture)." })),
  capturedAmount: Type.Optional(
    Type.Integer({ description: "What is captured: the amount for a payment captured with its authorisation." }),
  ),
  captures: Type.Optional(Type.Array(CaptureEntry, { description: "Captures made with /modification/capture, oldest first." })),
  disputes: Type.Array(DisputeEntry, { description: "Chargebacks and disputes at a real processor, the first opened first." }),
});

export const GetPaymentResponse = Type.Object({ payment: Payment, ...Envelope });
