// The merchant and the shopper of every test that pays: a link created through the API, and a
// shopper who opens its checkout page and posts the form back with every hidden input the page
// emitted, the way a browser without JavaScript does. Works against an in-process test server or
// a `paylink serve` process alike: all it needs is a base URL (and, to create links, a key and a
// terminal).
import { assertOk } from "./fixtures.ts";

/** Where links are created: the server, with the merchant key and terminal to use. */
export interface LinkTarget {
  baseUrl: string;
  apiKey: string;
  terminalIdentifier: string;
}

/**
 * Creates a link and returns its reference. Without `overrides` it is a PayByLink of one item
 * (ISK 48900 = 489 kr.); with only an `amount`, one item of that amount; a TokenizeByLink
 * defaults to amount 0 and no items. `headers` may act as another merchant (its x-api-key).
 */
export async function createLink(
  target: LinkTarget,
  overrides: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<string> {
  const tokenize = overrides.type === "TokenizeByLink";
  const amount = typeof overrides.amount === "number" ? overrides.amount : tokenize ? 0 : 48900;
  const body = {
    type: "PayByLink",
    terminalIdentifier: target.terminalIdentifier,
    amount,
    currency: "ISK",
    ...(tokenize ? {} : { items: [{ name: "Lopapeysa", quantity: 1, unitPrice: amount, amountWithoutDiscount: amount, amount }] }),
    ...overrides,
  };
  const response = await fetch(`${target.baseUrl}/api/v1/paymentlinks/create`, {
    method: "POST",
    headers: { "x-api-key": target.apiKey, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: assertOk shows the text
  }
  assertOk({ status: response.status, headers: response.headers, body: parsed });
  return parsed.paymentLinkReference as string;
}

/** A card expiry two years ahead, as `MM/YY`. */
export function futureExpiry(): string {
  const year = (new Date().getUTCFullYear() + 2) % 100;
  return `08/${String(year).padStart(2, "0")}`;
}

export const CARDS = {
  visa: "4111111111111111",
  mastercard: "5555555555554444",
  refused: "4000000000000002",
  expired: "4000000000000069",
  cvcDeclined: "4000000000000127",
  /** Luhn-valid, not in the sandbox table: approved. */
  other: "4242424242424242",
} as const;

/** The card fields of the form, the number grouped in fours as a shopper types it. */
export function cardFields(number: string = CARDS.visa): Record<string, string> {
  return { cardNumber: number.replace(/(\d{4})(?=\d)/g, "$1 "), cardExpiry: futureExpiry(), cardCvc: "737", cardHolder: "Jón Jónsson" };
}

export interface PageResponse {
  status: number;
  headers: Headers;
  html: string;
  /** Set on redirects. */
  location: string | null;
}

export async function getPage(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<PageResponse> {
  const response = await fetch(`${baseUrl}${path}`, { headers, redirect: "manual" });
  return { status: response.status, headers: response.headers, html: await response.text(), location: response.headers.get("location") };
}

/** The hidden inputs of the page's form (any attribute order, entities decoded), which a browser posts back unchanged. */
export function hiddenInputs(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const tag of html.match(/<input\b[^>]*>/gi) ?? []) {
    const attribute = (name: string) => new RegExp(`\\s${name}="([^"]*)"`, "i").exec(tag)?.[1];
    if (attribute("type")?.toLowerCase() !== "hidden") continue;
    const name = attribute("name");
    if (name !== undefined) fields[decodeHtml(name)] = decodeHtml(attribute("value") ?? "");
  }
  return fields;
}

/** Decodes the character references of HTML text (named ones for the five escaped characters, and numeric ones). */
export function decodeHtml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_match, entity: string) => {
    const lower = entity.toLowerCase();
    if (lower.startsWith("#x")) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith("#")) return String.fromCodePoint(parseInt(lower.slice(1), 10));
    return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[lower]!;
  });
}

/** The visible text of a page (styles and tags removed, entities decoded, whitespace collapsed). */
export function textOf(html: string): string {
  return decodeHtml(html.replace(/<style[\s\S]*?<\/style>/g, " ").replace(/<[^>]+>/g, " "))
    .replace(/\s+/g, " ")
    .trim();
}

export async function postForm(
  baseUrl: string,
  reference: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<PageResponse> {
  const response = await fetch(`${baseUrl}/pay/${reference}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, headers: response.headers, html: await response.text(), location: response.headers.get("location") };
}

export interface Payment extends PageResponse {
  /** From the 303 redirect to returnUrl, when the link has one. */
  checkoutReference: string | undefined;
}

/**
 * Opens the page (baseUrl may point at any instance) and posts its form with these fields plus
 * the page's hidden inputs; `headers` go with both requests. A page that does not answer 200 is
 * returned as it is, unposted.
 */
export async function pay(
  baseUrl: string,
  reference: string,
  fields: Record<string, string> = cardFields(),
  headers: Record<string, string> = {},
): Promise<Payment> {
  const page = await getPage(baseUrl, `/pay/${reference}`, headers);
  const response = page.status === 200 ? await postForm(baseUrl, reference, { ...hiddenInputs(page.html), ...fields }, headers) : page;
  const checkoutReference = response.location
    ? (new URL(response.location, baseUrl).searchParams.get("checkoutReference") ?? undefined)
    : undefined;
  return { ...response, checkoutReference };
}
