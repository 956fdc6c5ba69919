// What the client throws, and how it reads an error response: every failure is a PaylinkError;
// an answer from the server is a PaylinkApiError carrying the catalogue's errorCode.
import type { ErrorBody } from "./types.js";

/** Base class of every error the client throws. */
export class PaylinkError extends Error {
  override name = "PaylinkError";
}

/** The server answered with an error status (or with a body that is not the JSON it should be). */
export class PaylinkApiError extends PaylinkError {
  override name = "PaylinkApiError";
  /** HTTP status code. */
  readonly status: number;
  /** The error catalogue's code (docs/api.md#errors), e.g. `"2026"`; undefined when the body was not a Paylink error body (e.g. from a proxy). */
  readonly errorCode: ErrorBody["errorCode"] | undefined;
  /** The server's sentence naming the field and value at fault. */
  readonly errorMessage: string | undefined;
  /** Quote this when asking for support. */
  readonly responseIdentifier: string | undefined;
  readonly responseDateTime: string | undefined;
  /** From `Retry-After` (rate limiting 429, unavailable 503): seconds to wait before trying again. */
  readonly retryAfterSeconds: number | undefined;
  readonly method: string;
  readonly url: string;

  constructor(init: {
    status: number;
    method: string;
    url: string;
    body?: Partial<ErrorBody>;
    retryAfterSeconds?: number;
    /** Why the response could not be understood, when it was not a Paylink error body. */
    problem?: string;
  }) {
    const { status, method, url, body = {}, problem } = init;
    const cause = body.errorCode !== undefined ? `error ${body.errorCode}: ${body.errorMessage ?? "(no message)"}` : problem;
    super(`${method} ${url} failed with HTTP ${status}${cause === undefined ? "" : `, ${cause}`}`);
    this.status = status;
    this.errorCode = body.errorCode;
    this.errorMessage = body.errorMessage;
    this.responseIdentifier = body.responseIdentifier;
    this.responseDateTime = body.responseDateTime;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.method = method;
    this.url = url;
  }
}

/** No usable response arrived: DNS, connection refused or reset, TLS… The request may or may not have been processed. */
export class PaylinkNetworkError extends PaylinkError {
  override name = "PaylinkNetworkError";
  readonly method: string;
  readonly url: string;

  constructor(message: string, init: { method: string; url: string; cause?: unknown }) {
    super(message, { cause: init.cause });
    this.method = init.method;
    this.url = init.url;
  }
}

/** The request took longer than `timeoutMs`. Like any network error, the server may still have processed it. */
export class PaylinkTimeoutError extends PaylinkNetworkError {
  override name = "PaylinkTimeoutError";
  readonly timeoutMs: number;

  constructor(init: { method: string; url: string; timeoutMs: number; cause?: unknown }) {
    super(`${init.method} ${init.url} timed out after ${init.timeoutMs} ms`, init);
    this.timeoutMs = init.timeoutMs;
  }
}

/** The Paylink error body of a response, or a description of what came instead. */
export function errorBodyOf(text: string, response: Response): { body?: Partial<ErrorBody>; problem?: string } {
  const parsed = parseJsonOrUndefined(text);
  if (typeof parsed === "object" && parsed !== null && typeof (parsed as ErrorBody).errorCode === "string") {
    const fields = parsed as Record<string, unknown>;
    const textField = (name: keyof ErrorBody) => (typeof fields[name] === "string" ? (fields[name] as string) : undefined);
    return {
      body: {
        errorCode: fields.errorCode as string,
        errorMessage: textField("errorMessage"),
        responseIdentifier: textField("responseIdentifier"),
        responseDateTime: textField("responseDateTime"),
      },
    };
  }
  const location = response.headers.get("location");
  if (response.status >= 300 && response.status < 400 && location !== null) {
    return { problem: `redirected to ${location}; set baseUrl to the final address` };
  }
  const excerpt = text.trim().slice(0, 200);
  return { problem: excerpt === "" ? "empty response body" : `unexpected response body: ${excerpt}` };
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `Retry-After` is either seconds or an HTTP date. */
export function retryAfterSecondsOf(header: string | null): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

export function describeNetworkError(error: unknown): string {
  // Node's fetch reports "fetch failed" and puts the useful part (ECONNREFUSED…) in `cause`.
  const cause = error instanceof Error ? error.cause : undefined;
  const parts = [error instanceof Error ? error.message : String(error)];
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    parts.push(typeof code === "string" && !cause.message.includes(code) ? `${cause.message} (${code})` : cause.message);
  }
  return parts.join(": ");
}
