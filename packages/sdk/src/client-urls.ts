// How the client builds its URLs: the API's base URL from the one configured, references in paths,
// list queries.
import type { ListPaymentLinksQuery } from "./types.js";

const API_PATH = "/api/v1";

export function apiBaseUrlOf(baseUrl: string): string {
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new TypeError(`PaylinkClient: baseUrl must be an absolute URL such as https://pay.example.com, got ${JSON.stringify(baseUrl)}`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new TypeError(`PaylinkClient: baseUrl must use http or https, got ${parsed.protocol}`);
  }
  const root = `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, "");
  // Integrations written for Straumur's payment-links API are configured with `…/api/v1`.
  return root.endsWith(API_PATH) ? root : `${root}${API_PATH}`;
}

// An empty reference would turn a read of one link into a call of the list endpoint.
export function checkReference(reference: unknown): void {
  if (typeof reference !== "string" || reference === "") {
    throw new TypeError("paymentLinkReference must be a non-empty string");
  }
}

export function encodeReference(reference: string): string {
  checkReference(reference);
  return encodeURIComponent(reference);
}

export function queryString(query: ListPaymentLinksQuery): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query) as Array<[string, unknown]>) {
    if (value === undefined || value === null) continue;
    params.set(name, value instanceof Date ? value.toISOString() : String(value));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}
