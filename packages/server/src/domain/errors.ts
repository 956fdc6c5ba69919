// The one error catalogue of Paylink (SPEC §2.7). Every error a client can see is listed here
// once, with its HTTP status. Codes are strings on the wire and compatible with the service the
// seed describes, so existing integrations keep their error handling.

export const ERROR_CATALOGUE = {
  /** The body is not valid JSON, or is empty. */
  "1000": { status: 400, title: "Invalid JSON" },
  /** A value has the wrong JSON type (string for a number, fraction for an integer…). */
  "1005": { status: 400, title: "Wrong type" },
  /** A field the endpoint does not know, at the top level or nested. */
  "1006": { status: 400, title: "Unknown field" },
  /** A required field is missing or empty. */
  "000": { status: 400, title: "Required field missing" },
  /** A number is below its minimum (e.g. PayByLink amount 0, quantity 0, maxSalesCount below salesCount). */
  "2002": { status: 400, title: "Value must be greater" },
  /** A value outside its enumeration (type, status, culture, shopper field…). */
  "2003": { status: 400, title: "Unknown value" },
  /** A time that must be in the future is not. */
  "2005": { status: 400, title: "Time in the past" },
  /** Item amounts do not add up to the link amount. */
  "2007": { status: 400, title: "Sum mismatch" },
  /** A value that is well-formed but not supported (unknown currency, bad URL, bad date). */
  "2008": { status: 400, title: "Unsupported value" },
  /** A text is too long or a list has too many entries. */
  "2009": { status: 400, title: "Too long" },
  /** The themeKey is not a theme of this merchant. */
  "2010": { status: 400, title: "Theme not found" },
  /** The terminal does not accept this currency. */
  "2011": { status: 400, title: "Currency not accepted" },
  /** A text is shorter than its minimum length. */
  "2012": { status: 400, title: "Too short" },
  /** Fields that cannot be used together, or a field that cannot change. */
  "2013": { status: 400, title: "Conflicting fields" },
  /** The payment link does not exist, or belongs to another merchant. */
  "2014": { status: 404, title: "Not found" },
  /** The terminal does not exist for this merchant. */
  "2016": { status: 400, title: "Terminal not found" },
  /** A value must have an exact length (terminalIdentifier 12, currency 3). */
  "2017": { status: 400, title: "Wrong length" },
  /** An amount above the maximum of 10^11 minor units. */
  "2019": { status: 400, title: "Amount too high" },
  /** A TokenizeByLink amount other than 0. */
  "2023": { status: 400, title: "Tokenization amount must be 0" },
  /** An item amount above its amountWithoutDiscount. */
  "2025": { status: 400, title: "Item amount above amount without discount" },
  /** An ISK amount that does not end in 00 (ISK has no minor unit in use). */
  "2026": { status: 400, title: "ISK amount must end in 00" },
  /** No API key, or an unknown or revoked one. */
  "3001": { status: 401, title: "Unauthenticated" },
  /** Too many requests; Retry-After says when to come back. */
  "3002": { status: 429, title: "Rate limited" },
  /** The link's state forbids the change (sold links keep their price, completed links are final). */
  "3003": { status: 409, title: "State conflict" },
  /** An Idempotency-Key reused with a different body. */
  "3004": { status: 422, title: "Idempotency key reused" },
  /** A body over 1 MiB. */
  "3005": { status: 413, title: "Body too large" },
  /** A content type other than application/json. */
  "3006": { status: 415, title: "Unsupported media type" },
  /** A request with the same Idempotency-Key is still running. */
  "3007": { status: 409, title: "Idempotent request in progress" },
  /** Anything unexpected. The message never carries internals. */
  "5000": { status: 500, title: "Internal error" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** A failure a client can act on. Thrown or returned by domain code; mapped to HTTP in one place. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "AppError";
    this.status = ERROR_CATALOGUE[code].status;
  }
}

export function appError(code: ErrorCode, message: string): AppError {
  return new AppError(code, message);
}
