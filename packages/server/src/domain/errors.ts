// The one error catalogue of Paylink. Every error a client can see is listed here once, by name,
// with its wire code, HTTP status and when it happens; call sites use the name (`new
// AppError("NotFound", …)`), the wire sees the code, and the API reference (/docs) prints this
// table, so `when` is written for integrators. Codes are strings and compatible with Straumur's payment-links API, so
// existing integrations keep their error handling.

export const ERRORS = {
  InvalidJson: {
    code: "1000",
    status: 400,
    title: "Invalid JSON",
    when: "The body is not valid JSON, is empty, or could not be read at all (a request the HTTP parser refuses).",
  },
  WrongType: {
    code: "1005",
    status: 400,
    title: "Wrong type",
    when: "A value has the wrong JSON type (string for a number, fraction for an integer…).",
  },
  UnknownField: {
    code: "1006",
    status: 400,
    title: "Unknown field",
    when: "A field the endpoint does not know, at the top level or nested.",
  },
  RequiredFieldMissing: {
    code: "000",
    status: 400,
    title: "Required field missing",
    when: "A required field is missing, empty, or only spaces.",
  },
  MustBeGreater: {
    code: "2002",
    status: 400,
    title: "Value must be greater",
    when: "A number is below its minimum (PayByLink amount 0, quantity 0, maxSalesCount below salesCount…).",
  },
  UnknownValue: {
    code: "2003",
    status: 400,
    title: "Unknown value",
    when: "A value outside its enumeration (type, status, culture, shopper field…).",
  },
  TimeInPast: {
    code: "2005",
    status: 400,
    title: "Time in the past",
    when: "A time that must be in the future is not.",
  },
  SumMismatch: {
    code: "2007",
    status: 400,
    title: "Sum mismatch",
    when: "Item amounts do not add up to the link amount.",
  },
  UnsupportedValue: {
    code: "2008",
    status: 400,
    title: "Unsupported value",
    when: "A well-formed value that is not supported (unknown currency, bad URL, impossible date, unstorable text).",
  },
  TooLong: {
    code: "2009",
    status: 400,
    title: "Too long",
    when: "A text is too long, a list has too many entries, a number is above its cap (quantity, page), or a session's expiresAt is more than 24 hours ahead.",
  },
  ThemeNotFound: {
    code: "2010",
    status: 400,
    title: "Theme not found",
    when: "The themeKey is not a theme of this merchant.",
  },
  CurrencyNotAccepted: {
    code: "2011",
    status: 400,
    title: "Currency not accepted",
    when: "The terminal does not accept this currency.",
  },
  TooShort: {
    code: "2012",
    status: 400,
    title: "Too short",
    when: "A text is shorter than its minimum length.",
  },
  ConflictingFields: {
    code: "2013",
    status: 400,
    title: "Conflicting fields",
    when: "Fields that cannot be used together (an alias and its name, a filter range backwards), or a field that cannot change.",
  },
  NotFound: {
    code: "2014",
    status: 404,
    title: "Not found",
    when: "Nothing of this merchant at that reference: a payment link, and in the admin API a merchant, API key, webhook endpoint or delivery; also a path no route serves. Another merchant's object is reported exactly like one that does not exist.",
  },
  TerminalNotFound: {
    code: "2016",
    status: 400,
    title: "Terminal not found",
    when: "The terminal does not exist for this merchant.",
  },
  WrongLength: {
    code: "2017",
    status: 400,
    title: "Wrong length",
    when: "A value must have an exact length (terminalIdentifier 12, currency 3).",
  },
  AmountTooHigh: {
    code: "2019",
    status: 400,
    title: "Amount too high",
    when: "An amount above the maximum of 10^11 minor units.",
  },
  TokenizeAmountNotZero: {
    code: "2023",
    status: 400,
    title: "Tokenization amount must be 0",
    when: "A TokenizeByLink amount other than 0.",
  },
  ItemAboveUndiscounted: {
    code: "2025",
    status: 400,
    title: "Item amount above amount without discount",
    when: "An item amount above its amountWithoutDiscount.",
  },
  IskNotWhole: {
    code: "2026",
    status: 400,
    title: "ISK amount must end in 00",
    when: "An ISK amount that does not end in 00 (ISK has no minor unit in use).",
  },
  Unauthenticated: {
    code: "3001",
    status: 401,
    title: "Unauthenticated",
    when: "No API key, or an unknown or revoked one; a wrong admin token.",
  },
  RateLimited: {
    code: "3002",
    status: 429,
    title: "Rate limited",
    when: "Too many requests; Retry-After says when to come back.",
  },
  StateConflict: {
    code: "3003",
    status: 409,
    title: "State conflict",
    when: "The object's state forbids the change: a sold link keeps its price, a completed link is final, no price change while a payment is in flight, a portal user's e-mail is taken.",
  },
  IdempotencyKeyReused: {
    code: "3004",
    status: 422,
    title: "Idempotency key reused",
    when: "An Idempotency-Key reused with a different body.",
  },
  BodyTooLarge: {
    code: "3005",
    status: 413,
    title: "Body too large",
    when: "A body over 1 MiB.",
  },
  UnsupportedMediaType: {
    code: "3006",
    status: 415,
    title: "Unsupported media type",
    when: "A content type other than application/json.",
  },
  IdempotencyInProgress: {
    code: "3007",
    status: 409,
    title: "Idempotent request in progress",
    when: "A request with the same Idempotency-Key is still running, or its saved-card charge is at the card processor with an outcome not known yet; retry later to get its answer.",
  },
  ProcessorUnavailable: {
    code: "5002",
    status: 503,
    title: "Processor unavailable",
    when: "The card processor did not answer a saved-card charge in time. Nothing stays charged: the attempt is reversed, at once or by the reconciler within minutes; the payment is never reported as Authorised. Retry later.",
  },
  DatabaseUnavailable: {
    code: "5003",
    status: 503,
    title: "Database unavailable",
    // Raised by http/errors.ts for any failure db/unavailable.ts classifies as the database being away.
    when: "Paylink cannot reach its database right now (restarting, unreachable, connections dropped). Nothing is wrong with the request: retry after Retry-After seconds, with the same Idempotency-Key for a POST.",
  },
  ShuttingDown: {
    code: "5004",
    status: 503,
    title: "Shutting down",
    // Raised for requests that arrive on an open connection after SIGTERM, while the in-flight ones finish.
    when: "This instance is stopping. Retry after Retry-After seconds; behind a load balancer another instance answers.",
  },
  Internal: {
    code: "5000",
    status: 500,
    title: "Internal error",
    when: "Anything unexpected. The message never carries internals.",
  },
} as const satisfies Record<string, { code: string; status: number; title: string; when: string }>;

export type ErrorName = keyof typeof ERRORS;
export type ErrorCode = (typeof ERRORS)[ErrorName]["code"];

/** The catalogue by wire code (what a client sees), for readers that start from a response. */
export const ERROR_CATALOGUE = Object.fromEntries(Object.values(ERRORS).map((entry) => [entry.code, entry])) as Record<
  ErrorCode,
  (typeof ERRORS)[ErrorName]
>;

/** A failure a client can act on. Thrown or returned by domain code; mapped to HTTP in one place. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  constructor(
    readonly kind: ErrorName,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "AppError";
    this.code = ERRORS[kind].code;
    this.status = ERRORS[kind].status;
  }

  /**
   * The request field the error is about, as the messages name it ("amount", "items[1].amount",
   * "shopperInfo[0].prefilledValue"), when the rule knows it: a form shows the error beside that
   * field. Not on the wire: the envelope is Straumur's and has no field (docs/api.md#errors).
   */
  field: string | undefined = undefined;

  /** Names the offending field: `throw new AppError("TooLong", "…").at("description")`. */
  at(field: string): this {
    this.field = field;
    return this;
  }
}
