// Typed client for the payment-link API (docs/api.md). Uses the global fetch (or one you pass), so
// it has no dependencies; every failure surfaces as one of the PaylinkError classes (errors.ts).
import { randomUUID } from "node:crypto";
import type {
  AdjustRequest,
  CaptureRequest,
  ChargeTokenRequest,
  ChargeTokenResponse,
  GetPaymentResponse,
  ModificationResponse,
  Payment,
  RefundRequest,
  ReverseRequest,
} from "./after-sale-types.js";
import { apiBaseUrlOf, checkReference, encodeReference, queryString } from "./client-urls.js";
import {
  describeNetworkError,
  errorBodyOf,
  PaylinkApiError,
  PaylinkError,
  PaylinkNetworkError,
  PaylinkTimeoutError,
  retryAfterSecondsOf,
} from "./errors.js";
import type { CreateSessionRequest, CreateSessionResponse, SessionStatusResponse } from "./session-types.js";
import type {
  CreatePaymentLinkRequest,
  CreatePaymentLinkResponse,
  GetPaymentLinkResponse,
  ListPaymentLinksQuery,
  ListPaymentLinksResponse,
  PaymentLink,
  PaymentLinkSummary,
  ResponseEnvelope,
  UpdatePaymentLinkRequest,
} from "./types.js";

export { PaylinkApiError, PaylinkError, PaylinkNetworkError, PaylinkTimeoutError };

export interface PaylinkClientOptions {
  /** Where Paylink runs, e.g. `https://pay.example.com`. `/api/v1` is appended unless the URL already ends with it. */
  baseUrl: string;
  /** An API key from the portal or the admin API (`plk_…`). */
  apiKey: string;
  /** Limit for one request, response body included. Default 30 000 ms. */
  timeoutMs?: number;
  /** A fetch implementation to use instead of the global one (proxies, instrumentation, tests). */
  fetch?: typeof globalThis.fetch;
}

export interface PostRequestOptions {
  /**
   * Sent as `Idempotency-Key`. A random UUID is used when absent. Pass your own (e.g. your order
   * id) to retry a request safely: the server replays the first response instead of acting twice.
   */
  idempotencyKey?: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** The iterator asks for the largest page the server allows, to make as few requests as possible. */
const ITERATOR_PAGE_SIZE = 100;

/**
 * Client for the Paylink payment-link API.
 *
 * ```ts
 * const paylink = new PaylinkClient({ baseUrl: "https://pay.example.com", apiKey: process.env.PAYLINK_API_KEY! });
 * const { url } = await paylink.createPaymentLink({ type: "PayByLink", terminalIdentifier, amount: 48900, currency: "ISK", items });
 * ```
 */
export class PaylinkClient {
  readonly #apiBaseUrl: string;
  readonly #apiKey: string;
  readonly #timeoutMs: number;
  readonly #fetch: typeof globalThis.fetch;

  constructor(options: PaylinkClientOptions) {
    const { baseUrl, apiKey, timeoutMs = DEFAULT_TIMEOUT_MS } = options;
    if (typeof apiKey !== "string" || apiKey === "") throw new TypeError("PaylinkClient: apiKey is required");
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new TypeError(`PaylinkClient: timeoutMs must be a positive number, got ${String(timeoutMs)}`);
    }
    this.#apiBaseUrl = apiBaseUrlOf(baseUrl);
    this.#apiKey = apiKey;
    this.#timeoutMs = timeoutMs;
    const fetchImplementation = options.fetch ?? globalThis.fetch;
    if (typeof fetchImplementation !== "function") {
      throw new TypeError("PaylinkClient: no fetch available; pass one in the fetch option");
    }
    this.#fetch = fetchImplementation;
  }

  /** `POST /paymentlinks/create`. Resolves with the new link's reference and shareable URL. */
  // Public methods are async so that argument errors, too, arrive as rejected promises.
  async createPaymentLink(request: CreatePaymentLinkRequest, options: PostRequestOptions = {}): Promise<CreatePaymentLinkResponse> {
    return this.#post("/paymentlinks/create", request, options);
  }

  /** `GET /paymentlinks/{reference}`: the full link, with its submissions. */
  async getPaymentLink(reference: string): Promise<PaymentLink> {
    const response = await this.#send<GetPaymentLinkResponse>("GET", `/paymentlinks/${encodeReference(reference)}`);
    return response.paymentLink;
  }

  /**
   * `POST /paymentlinks/update`. Pass the link as read by {@link getPaymentLink}, changed:
   * `submissions` is left out of the request; the server ignores its other read-only fields.
   */
  async updatePaymentLink(link: UpdatePaymentLinkRequest | PaymentLink, options: PostRequestOptions = {}): Promise<ResponseEnvelope> {
    const { submissions: _submissions, ...request } = link as PaymentLink;
    checkReference(request.paymentLinkReference);
    return this.#post("/paymentlinks/update", request, options);
  }

  /** `POST /paymentlinks/disable`. Idempotent: disabling a disabled link succeeds. */
  async disablePaymentLink(reference: string, options: PostRequestOptions = {}): Promise<ResponseEnvelope> {
    checkReference(reference);
    return this.#post("/paymentlinks/disable", { paymentLinkReference: reference }, options);
  }

  /** `GET /paymentlinks`: one page of links, newest first, with the total number of matches. */
  async listPaymentLinks(query: ListPaymentLinksQuery = {}): Promise<ListPaymentLinksResponse> {
    return this.#send("GET", `/paymentlinks${queryString(query)}`);
  }

  /**
   * Every link matching `query`, page after page, starting at `query.page` (default 0).
   *
   * ```ts
   * for await (const link of paylink.iteratePaymentLinks({ status: "Active" })) console.log(link.url);
   * ```
   * Links created while iterating push older ones onto later pages; those repeats are skipped.
   */
  async *iteratePaymentLinks(query: ListPaymentLinksQuery = {}): AsyncGenerator<PaymentLinkSummary, void, undefined> {
    const pageSize = query.pageSize ?? ITERATOR_PAGE_SIZE;
    const seen = new Set<string>();
    for (let page = query.page ?? 0; ; page++) {
      const { data, totalCount } = await this.listPaymentLinks({ ...query, page, pageSize });
      for (const link of data) {
        if (seen.has(link.paymentLinkReference)) continue;
        seen.add(link.paymentLinkReference);
        yield link;
      }
      if (data.length < pageSize || (page + 1) * pageSize >= totalCount) return;
    }
  }

  /**
   * `POST /payment`: charge a saved card. Resolves with `resultCode` `Authorised` or `Refused`
   * (both HTTP 200); an unknown outcome rejects with a PaylinkApiError (503, `5002`) and nothing
   * stays charged. Pass your own idempotencyKey (e.g. your invoice id) to retry safely.
   */
  async chargeToken(request: ChargeTokenRequest, options: PostRequestOptions = {}): Promise<ChargeTokenResponse> {
    return this.#post("/payment", request, options);
  }

  /** `POST /modification/refund`: refund part or all of a payment; the result arrives as a `Refund` webhook. */
  async refund(request: RefundRequest, options: PostRequestOptions = {}): Promise<ModificationResponse> {
    checkValue("payfacReference", request?.payfacReference);
    return this.#post("/modification/refund", request, options);
  }

  /** `POST /modification/reverse`: cancel a payment, or refund whatever of it is not yet refunded. */
  async reverse(request: ReverseRequest | string, options: PostRequestOptions = {}): Promise<ModificationResponse> {
    const body = typeof request === "string" ? { payfacReference: request } : request;
    checkValue("payfacReference", body?.payfacReference);
    return this.#post("/modification/reverse", body, options);
  }

  /**
   * `POST /modification/capture`: capture part or all of a manual-capture authorisation; the result
   * arrives as a `Capture` webhook.
   */
  async capture(request: CaptureRequest, options: PostRequestOptions = {}): Promise<ModificationResponse> {
    checkValue("payfacReference", request?.payfacReference);
    return this.#post("/modification/capture", request, options);
  }

  /**
   * `POST /modification/adjust`: a pre-authorisation's new total, before any capture; the result
   * arrives as an `Adjustment` webhook.
   */
  async adjust(request: AdjustRequest, options: PostRequestOptions = {}): Promise<ModificationResponse> {
    checkValue("payfacReference", request?.payfacReference);
    return this.#post("/modification/adjust", request, options);
  }

  /** `POST /tokens/disable`: later charges of the card are refused (409). Idempotent. */
  async disableToken(tokenValue: string, options: PostRequestOptions = {}): Promise<ResponseEnvelope> {
    checkValue("tokenValue", tokenValue);
    return this.#post("/tokens/disable", { tokenValue }, options);
  }

  /**
   * `POST /hostedcheckout`: a payment page for one order. Send the shopper to `url`; the result
   * comes back on the return URL, from getSessionStatus and as webhooks.
   */
  async createSession(request: CreateSessionRequest, options: PostRequestOptions = {}): Promise<CreateSessionResponse> {
    return this.#post("/hostedcheckout", request, options);
  }

  /** `GET /hostedcheckout/status/{checkoutReference}`: New, Completed (with its payfacReference) or Expired. */
  async getSessionStatus(checkoutReference: string): Promise<SessionStatusResponse> {
    checkValue("checkoutReference", checkoutReference);
    return this.#send("GET", `/hostedcheckout/status/${encodeURIComponent(checkoutReference)}`);
  }

  /** `GET /payments/{payfacReference}`: a link sale, session payment or token payment with its refunds. */
  async getPayment(payfacReference: string): Promise<Payment> {
    checkValue("payfacReference", payfacReference);
    const response = await this.#send<GetPaymentResponse>("GET", `/payments/${encodeURIComponent(payfacReference)}`);
    return response.payment;
  }

  #post<T>(path: string, body: unknown, options: PostRequestOptions): Promise<T> {
    const { idempotencyKey = randomUUID() } = options;
    if (typeof idempotencyKey !== "string" || idempotencyKey.length < 1 || idempotencyKey.length > 255) {
      throw new TypeError("idempotencyKey must be a string of 1 to 255 characters");
    }
    return this.#send("POST", path, { body, idempotencyKey });
  }

  async #send<T>(method: "GET" | "POST", path: string, post?: { body: unknown; idempotencyKey: string }): Promise<T> {
    const url = `${this.#apiBaseUrl}${path}`;
    const headers: Record<string, string> = { "X-API-key": this.#apiKey, Accept: "application/json" };
    if (post !== undefined) {
      headers["Content-Type"] = "application/json";
      headers["Idempotency-Key"] = post.idempotencyKey;
    }
    const signal = AbortSignal.timeout(this.#timeoutMs);

    let response: Response;
    let text: string;
    try {
      response = await this.#fetch(url, {
        method,
        headers,
        body: post === undefined ? undefined : JSON.stringify(post.body),
        signal,
        // A redirect would carry the API key to wherever it points; report it instead.
        redirect: "manual",
      });
      text = await response.text();
    } catch (error) {
      if (signal.aborted) throw new PaylinkTimeoutError({ method, url, timeoutMs: this.#timeoutMs, cause: error });
      throw new PaylinkNetworkError(`${method} ${url} failed: ${describeNetworkError(error)}`, { method, url, cause: error });
    }

    if (!response.ok) {
      throw new PaylinkApiError({
        status: response.status,
        method,
        url,
        ...errorBodyOf(text, response),
        retryAfterSeconds: retryAfterSecondsOf(response.headers.get("retry-after")),
      });
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new PaylinkApiError({ status: response.status, method, url, problem: "the response body is not JSON" });
    }
  }
}

// An empty reference would turn a read of one payment into a call of another endpoint.
function checkValue(name: string, value: unknown): void {
  if (typeof value !== "string" || value === "") throw new TypeError(`${name} must be a non-empty string`);
}
