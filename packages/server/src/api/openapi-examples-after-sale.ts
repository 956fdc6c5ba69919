// Worked examples of the after-sale operations (docs/api.md#saved-cards-and-refunds) for the API
// reference: the requests the live gateway's e-commerce plugins send, and Paylink's answers.
import type { Example, OperationExamples } from "./openapi-examples.ts";

const TERMINAL = "c96f87051344";
const TOKEN = "K7N2QX9RT4BW8M3C";
const PAYMENT = "9TX4KD2MQ8RZ6WNB";
const REFUND = "H3V8PQ2LX7ND4KRT";
const envelope = (second: number) => ({
  responseDateTime: `2026-03-15T08:12:${String(second).padStart(2, "0")}.214Z`,
  responseIdentifier: "5b1f2d9e-7c4a-4e0b-9a61-2d8c3f7e9b40",
});

export const CHARGE_TOKEN = {
  terminalIdentifier: TERMINAL,
  amount: 129900,
  currency: "ISK",
  reference: "subscription-5521-2026-03",
  tokenDetails: { tokenValue: TOKEN, recurringProcessingModel: "Subscription" },
  shopperIp: "203.0.113.7",
  origin: "https://shop.example",
  channel: "Web",
  returnUrl: "https://shop.example/checkout/return",
};

export const AFTER_SALE_ERRORS = {
  tokenNotFound: { errorCode: "2014", errorMessage: `No saved card with tokenValue "${TOKEN}" was found.` },
  tokenDisabled: { errorCode: "3003", errorMessage: `The saved card ${TOKEN} is disabled and cannot be charged.` },
  paymentNotFound: { errorCode: "2014", errorMessage: `No payment with payfacReference "${PAYMENT}" was found.` },
  refundTooHigh: {
    errorCode: "2019",
    errorMessage: `amount ISK 1,299 is more than what is left to refund of payment ${PAYMENT}: ISK 299.`,
  },
  fullyRefunded: { errorCode: "3003", errorMessage: `Payment ${PAYMENT} is already fully refunded; there is nothing left to reverse.` },
  unauthenticated: { errorCode: "3001", errorMessage: "The API key is unknown or has been revoked." },
} as const;

const error = (summary: string, name: keyof typeof AFTER_SALE_ERRORS, second: number): Record<string, Example> => ({
  [name]: { summary, value: { ...AFTER_SALE_ERRORS[name], ...envelope(second) } },
});
const UNAUTHENTICATED = error("Unknown or revoked API key", "unauthenticated", 50);
const RECEIVED = {
  received: {
    summary: "Received: the result arrives as a Refund webhook",
    value: { payfacReference: REFUND, originalPayfacReference: PAYMENT, status: "Received", ...envelope(53) },
  },
};

const authorised = {
  resultCode: "Authorised",
  payfacReference: PAYMENT,
  checkoutReference: "Vb8nQ2xK7mPa4TzR9wLc",
  merchantReference: CHARGE_TOKEN.reference,
  amount: 129900,
  currency: "ISK",
  additionalData: { cardNumber: "411111******1111", cardSummary: "1111", paymentMethod: "VI", cardUsage: "Debit", authCode: "482913" },
};

export function afterSaleExamples(): Record<string, OperationExamples> {
  return {
    chargeToken: {
      success: "Authorised or Refused (both HTTP 200): the payment's references and the masked card.",
      requests: { subscription: { summary: "A monthly subscription charge, as the e-commerce plugin sends it", value: CHARGE_TOKEN } },
      responses: {
        200: {
          authorised: { summary: "Authorised", value: { ...authorised, ...envelope(51) } },
          refused: {
            summary: "Refused (the sandbox card 4000 0000 0000 0341)",
            value: {
              ...authorised,
              resultCode: "Refused",
              refusalReason: "Not enough balance",
              additionalData: { cardNumber: "400000******0341", cardSummary: "0341", paymentMethod: "VI", cardUsage: "Debit" },
              ...envelope(52),
            },
          },
        },
        401: UNAUTHENTICATED,
        404: error("No saved card with this token for your merchant", "tokenNotFound", 54),
        409: error("The saved card was disabled", "tokenDisabled", 55),
      },
    },
    refundPayment: {
      success: "Received: the refund's own payfacReference. Its result arrives as a Refund webhook.",
      requests: {
        partial: {
          summary: "Refund part of a payment",
          value: { payfacReference: PAYMENT, amount: 100000, currency: "ISK", reference: "return-88", refundReason: "RETURN" },
        },
      },
      responses: { 200: RECEIVED, 400: error("More than what is left to refund", "refundTooHigh", 56), 401: UNAUTHENTICATED },
    },
    reversePayment: {
      success: "Received: the reversal's own payfacReference. Its result arrives as a Refund webhook.",
      requests: { reverse: { summary: "Reverse a payment", value: { payfacReference: PAYMENT, reference: "cancel-order-1043" } } },
      responses: { 200: RECEIVED, 401: UNAUTHENTICATED, 409: error("Nothing left to reverse", "fullyRefunded", 57) },
    },
    disableToken: {
      success: "The saved card is disabled (also when it already was): the envelope only.",
      requests: { disable: { summary: "Disable a saved card", value: { tokenValue: TOKEN } } },
      responses: {
        200: { done: { summary: "Done: the envelope only", value: envelope(58) } },
        401: UNAUTHENTICATED,
        404: error("No saved card with this token", "tokenNotFound", 54),
      },
    },
    getPayment: {
      success: "The payment, its refunds and what is refunded in all.",
      parameters: { payfacReference: PAYMENT },
      responses: {
        200: {
          refunded: {
            summary: "A token payment refunded in part",
            value: {
              payment: {
                payfacReference: PAYMENT,
                checkoutReference: authorised.checkoutReference,
                merchantReference: CHARGE_TOKEN.reference,
                paymentLinkReference: null,
                amount: 129900,
                currency: "ISK",
                resultCode: "Authorised",
                refusalReason: null,
                cardNumber: "411111******1111",
                cardSummary: "1111",
                paymentMethod: "VI",
                createdAt: "2026-03-15T08:12:41.102Z",
                refundedAmount: 100000,
                refunds: [
                  {
                    payfacReference: REFUND,
                    type: "Refund",
                    amount: 100000,
                    reason: "RETURN",
                    reference: "return-88",
                    status: "Succeeded",
                    createdAt: "2026-03-16T10:03:27.880Z",
                  },
                ],
                isManualCapture: false,
                capturedAmount: 129900,
                captures: [],
                disputes: [],
              },
              ...envelope(59),
            },
          },
        },
        401: UNAUTHENTICATED,
        404: error("No payment with this payfacReference for your merchant", "paymentNotFound", 49),
      },
    },
  };
}
