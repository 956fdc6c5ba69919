// Worked examples of hosted-checkout sessions (docs/api.md#hosted-checkout-sessions) for the API
// reference: the bodies the WooCommerce and Adobe Commerce plugins send, and Paylink's answers.
import type { Example, OperationExamples } from "./openapi-examples.ts";

const TERMINAL = "c96f87051344";
const SESSION = "k3v9q2m7x1p8r4t6w0z5a2b7c9d1e3f5g8h0j2l4n6p8r1s3u5";
const envelope = (second: number) => ({
  responseDateTime: `2026-03-15T09:41:${String(second).padStart(2, "0")}.318Z`,
  responseIdentifier: "7d2e4f6a-1b3c-4d5e-8f9a-0b1c2d3e4f5a",
});

/**
 * What the WooCommerce plugin posts: items by name and amount only, and a 5-minute expiry. (The
 * plugin writes `Name` and `Amount`; names match in any letter case, the reference shows camelCase.)
 */
export const WOOCOMMERCE_SESSION = {
  amount: 489000,
  currency: "ISK",
  returnUrl: "https://shop.example/checkout/order-received/1042/?key=wc_order_abc",
  reference: "1042",
  terminalIdentifier: TERMINAL,
  expiresAt: "2026-03-15T09:46:12Z",
  culture: "en",
  items: [
    { name: "Lopapeysa", amount: 459000 },
    { name: "Shipping", amount: 30000 },
  ],
};

/** What the Adobe Commerce plugin posts: the amount as a string of digits and a discount line. */
export const ADOBE_COMMERCE_SESSION = {
  amount: "489000",
  currency: "ISK",
  returnUrl: "https://magento.example/straumur/payment/return",
  reference: "000000123",
  terminalIdentifier: TERMINAL,
  culture: "is",
  abandonUrl: "https://magento.example/checkout/cart",
  items: [
    { name: "Lopapeysa", quantity: 1, unitPrice: 509000, amountWithoutDiscount: 509000, amount: 509000 },
    { name: "Discount", quantity: 1, unitPrice: -20000, amountWithoutDiscount: -20000, amount: -20000 },
  ],
};

const AUTHORISED = "9TX4KD2MQ8RZ6WNB";

/** What the WooCommerce plugin posts to capture an order authorised with isManualCapture (a part of it here). */
export const CAPTURE = { reference: "1042", payfacReference: AUTHORISED, amount: "200000", currency: "ISK" };
/** A pre-authorisation's new total. */
export const ADJUST = { reference: "1042", payfacReference: AUTHORISED, amount: 520000, currency: "ISK" };

export const SESSION_ERRORS = {
  captureTooHigh: {
    errorCode: "2019",
    errorMessage: `amount ISK 3,000 is more than what is left to capture of payment ${AUTHORISED}: ISK 2,890.`,
  },
  notManualCapture: { errorCode: "3003", errorMessage: `Payment ${AUTHORISED} is not a manual-capture authorisation.` },
  tooLate: {
    errorCode: "2009",
    errorMessage: 'expiresAt "2026-03-16T15:41:12Z" is more than 24 hours ahead; a session lives at most 24 hours.',
  },
  notFound: { errorCode: "2014", errorMessage: `No session with checkoutReference "${SESSION}" was found.` },
  tokenNotFound: { errorCode: "2014", errorMessage: 'No saved card with tokenValue "K7N2QX9RT4BW8M3C" was found.' },
  unauthenticated: { errorCode: "3001", errorMessage: "The API key is unknown or has been revoked." },
} as const;

const error = (summary: string, name: keyof typeof SESSION_ERRORS, second: number): Record<string, Example> => ({
  [name]: { summary, value: { ...SESSION_ERRORS[name], ...envelope(second) } },
});
const UNAUTHENTICATED = error("Unknown or revoked API key", "unauthenticated", 50);

export function sessionExamples(publicBaseUrl: string): Record<string, OperationExamples> {
  return {
    createHostedCheckoutSession: {
      success: "The session's page (send the shopper there) and its checkoutReference.",
      requests: {
        wooCommerce: { summary: "An order, as the WooCommerce plugin sends it", value: WOOCOMMERCE_SESSION },
        adobeCommerce: { summary: "An order with a discount, as the Adobe Commerce plugin sends it", value: ADOBE_COMMERCE_SESSION },
      },
      responses: {
        200: {
          created: {
            summary: "Created",
            value: { url: `${publicBaseUrl}/checkout/${SESSION}`, checkoutReference: SESSION, ...envelope(13) },
          },
        },
        400: error("expiresAt more than 24 hours ahead", "tooLate", 14),
        401: UNAUTHENTICATED,
      },
    },
    getHostedCheckoutStatus: {
      success: "New, Completed (with the payment's payfacReference) or Expired.",
      parameters: { checkoutReference: SESSION },
      responses: {
        200: {
          completed: { summary: "Paid", value: { status: "Completed", payfacReference: "9TX4KD2MQ8RZ6WNB", ...envelope(20) } },
          new: {
            summary: "Not paid yet: payfacReference is null, never an empty string",
            value: { status: "New", payfacReference: null, ...envelope(21) },
          },
        },
        401: UNAUTHENTICATED,
        404: error("No session with this checkoutReference for your merchant", "notFound", 22),
      },
    },
    disableTokenLivePath: {
      success: "The saved card is disabled (also when it already was), answered as the live gateway does.",
      requests: { disable: { summary: "Disable a saved card", value: { tokenValue: "K7N2QX9RT4BW8M3C" } } },
      responses: {
        200: { done: { summary: "Done", value: { success: true, message: "Token disabled successfully.", ...envelope(30) } } },
        401: UNAUTHENTICATED,
        404: error("No saved card with this token for your merchant", "tokenNotFound", 31),
      },
    },
    capturePayment: {
      success: "Received: the capture's own payfacReference; the result arrives as a Capture webhook.",
      requests: { partial: { summary: "Capture part of an order authorised with isManualCapture", value: CAPTURE } },
      responses: {
        200: {
          received: {
            summary: "Received",
            value: { payfacReference: "M4QZ8RT2KX7BW9NC", originalPayfacReference: AUTHORISED, status: "Received", ...envelope(40) },
          },
        },
        400: error("More than is left to capture", "captureTooHigh", 41),
        401: UNAUTHENTICATED,
        409: error("Not a manual-capture authorisation", "notManualCapture", 42),
      },
    },
    adjustAuthorisation: {
      success: "Received; the result arrives as an Adjustment webhook with the new authorised amount.",
      requests: { newTotal: { summary: "A pre-authorisation's new total", value: ADJUST } },
      responses: {
        200: {
          received: {
            summary: "Received",
            value: { payfacReference: "R8TX2KD9QM4ZW7BN", originalPayfacReference: AUTHORISED, status: "Received", ...envelope(43) },
          },
        },
        401: UNAUTHENTICATED,
        409: error("Not a manual-capture authorisation", "notManualCapture", 44),
      },
    },
  };
}
