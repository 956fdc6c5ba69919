// Worked examples of every /api/v1 operation for the API reference: requests a merchant can copy,
// and the answers the server gives to them. The tests send these requests to a real server and
// compare its answers with the examples, so an example that stops being true fails the suite.

export interface Example {
  summary: string;
  value: unknown;
}

export interface OperationExamples {
  /** What the 200 answer holds. */
  success: string;
  /** Named request bodies. */
  requests?: Record<string, Example>;
  /** Example values of path and query parameters. */
  parameters?: Record<string, unknown>;
  /** Named examples per HTTP status. */
  responses: Record<number, Record<string, Example>>;
}

const REFERENCE = "AY2hcgzvdvDedgcT";
const TERMINAL = "c96f87051344";
const envelope = (second: number) => ({
  responseDateTime: `2026-03-14T09:26:${String(second).padStart(2, "0")}.589Z`,
  responseIdentifier: "0f8e8c7e-5b2a-4a53-9f25-6f5c2b1d7a10",
});

export const PAY_BY_LINK = {
  type: "PayByLink",
  terminalIdentifier: TERMINAL,
  amount: 1290000,
  currency: "ISK",
  items: [
    { name: "Lopapeysa, size M", quantity: 1, unitPrice: 1490000, amountWithoutDiscount: 1490000, amount: 1190000 },
    { name: "Shipping", quantity: 1, unitPrice: 100000, amountWithoutDiscount: 100000, amount: 100000 },
  ],
  culture: "en",
  description: "Order 1043",
  returnUrl: "https://shop.example/thanks",
  exactSalesCount: 1,
  shopperInfo: [
    { field: "FullName", requirementType: "Required" },
    { field: "EmailAddress", requirementType: "Required" },
    { field: "Comments", requirementType: "Optional" },
  ],
};

export const TOKENIZE_BY_LINK = {
  type: "TokenizeByLink",
  terminalIdentifier: TERMINAL,
  amount: 0,
  currency: "ISK",
  recurringProcessingModel: "Subscription",
  description: "Monthly subscription, customer 5521",
};

/** The link of PAY_BY_LINK as GET reads it, after one payment. */
function readLink(baseUrl: string) {
  return {
    terminalIdentifier: TERMINAL,
    paymentLinkReference: REFERENCE,
    themeKey: null,
    description: "Order 1043",
    amount: 1290000,
    currency: "ISK",
    returnUrl: "https://shop.example/thanks",
    status: "Used",
    culture: "en",
    type: "PayByLink",
    url: `${baseUrl}/pay/${REFERENCE}`,
    createdAt: "2026-03-14T09:26:53.201Z",
    validUntil: null,
    recurringProcessingModel: null,
    visitCount: 2,
    salesCount: 1,
    maxSalesCount: 1,
    items: PAY_BY_LINK.items,
    shopperInfo: PAY_BY_LINK.shopperInfo.map((entry) => ({ ...entry, prefilledValue: null })),
    submissions: [
      {
        checkoutReference: "Qm3vT8zLw2PaYx7NcR4k",
        answers: [
          { field: "FullName", value: "Guðrún Jónsdóttir" },
          { field: "EmailAddress", value: "gudrun@example.is" },
        ],
        completed: true,
        amount: 1290000,
        currency: "ISK",
        token: null,
        payfacReference: "7QK2M9XW4RTB8N3D",
        refundedAmount: 0,
        createdAt: "2026-03-14T10:02:11.734Z",
      },
    ],
  };
}

export const ERROR_EXAMPLES = {
  unauthenticated: { errorCode: "3001", errorMessage: "The API key is unknown or has been revoked." },
  iskNotWhole: {
    errorCode: "2026",
    errorMessage: "amount 1290050 is not valid for ISK: ISK amounts are in hundredths and must end in 00.",
  },
  keyReused: {
    errorCode: "3004",
    errorMessage: "This Idempotency-Key was already used with a different request body; use a new key for a new request.",
  },
  notFound: { errorCode: "2014", errorMessage: `No payment link with paymentLinkReference "${REFERENCE}" was found.` },
  soldPrice: { errorCode: "3003", errorMessage: "amount, currency and items cannot change after a sale (this link has 1)." },
  unknownStatus: { errorCode: "2003", errorMessage: 'status must be one of "Active", "Expired", "Used", "Disabled", "Completed".' },
} as const;

const error = (summary: string, name: keyof typeof ERROR_EXAMPLES, second: number): Record<string, Example> => ({
  [name]: { summary, value: { ...ERROR_EXAMPLES[name], ...envelope(second) } },
});

const UNAUTHENTICATED = error("Unknown or revoked API key", "unauthenticated", 50);
const ENVELOPE_ONLY = { done: { summary: "Done: the envelope only", value: envelope(54) } };

/** The examples by operationId; `baseUrl` is the server's public base URL, as in real link URLs. */
export function operationExamples(baseUrl: string): Record<string, OperationExamples> {
  const link = readLink(baseUrl);
  const { submissions: _readOnly, ...updatable } = link;
  return {
    createPaymentLink: {
      success: "The new link: its reference and the URL to send the shopper to.",
      requests: {
        payByLink: { summary: "PayByLink with items, a buyer form and one sale", value: PAY_BY_LINK },
        tokenizeByLink: { summary: "TokenizeByLink: save a card for a subscription", value: TOKENIZE_BY_LINK },
      },
      responses: {
        200: {
          created: {
            summary: "The new link's reference and URL",
            value: { paymentLinkReference: REFERENCE, url: `${baseUrl}/pay/${REFERENCE}`, ...envelope(53) },
          },
        },
        400: error("An ISK amount that does not end in 00", "iskNotWhole", 51),
        401: UNAUTHENTICATED,
        422: error("An Idempotency-Key sent again with another body", "keyReused", 52),
      },
    },
    getPaymentLink: {
      success: "The whole link, with its status as of now and every checkout submission.",
      parameters: { reference: REFERENCE },
      responses: {
        200: { paid: { summary: "A PayByLink link, sold once", value: { paymentLink: link, ...envelope(55) } } },
        401: UNAUTHENTICATED,
        404: error("No link with this reference for your merchant", "notFound", 56),
      },
    },
    updatePaymentLink: {
      success: "The change is saved: the envelope only. Read the link again to see it.",
      requests: {
        extend: {
          summary: "The object read by GET, sent back with a new limit and expiry",
          value: { ...updatable, maxSalesCount: 5, validUntil: "2031-12-31T23:59:59Z" },
        },
      },
      responses: {
        200: ENVELOPE_ONLY,
        401: UNAUTHENTICATED,
        409: error("A price change after the first sale", "soldPrice", 57),
      },
    },
    disablePaymentLink: {
      success: "The link is Disabled (also when it already was): the envelope only.",
      requests: { disable: { summary: "Disable a link", value: { paymentLinkReference: REFERENCE } } },
      responses: { 200: ENVELOPE_ONLY, 401: UNAUTHENTICATED, 404: error("No link with this reference", "notFound", 56) },
    },
    listPaymentLinks: {
      success: "One page of links, newest first, and how many match in all.",
      parameters: { page: 0, pageSize: 20, status: "Active", type: "PayByLink", search: "Order 10" },
      responses: {
        200: {
          page: {
            summary: "The first page",
            value: {
              data: [
                {
                  paymentLinkReference: REFERENCE,
                  description: "Order 1043",
                  amount: 1290000,
                  currency: "ISK",
                  type: "PayByLink",
                  status: "Active",
                  url: `${baseUrl}/pay/${REFERENCE}`,
                  createdAt: "2026-03-14T09:26:53.201Z",
                  validUntil: null,
                  visitCount: 0,
                  salesCount: 0,
                  maxSalesCount: 1,
                },
              ],
              totalCount: 1,
              ...envelope(58),
            },
          },
        },
        400: error("A status filter that does not exist (?status=Open)", "unknownStatus", 59),
        401: UNAUTHENTICATED,
      },
    },
  };
}
