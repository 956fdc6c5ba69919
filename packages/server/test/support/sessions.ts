// The session tests' shortcuts: request bodies as the e-commerce plugins send them (written from
// docs/api.md#hosted-checkout-sessions), and a shopper paying a session's page.
import assert from "node:assert/strict";
import type { ApiResponse, MerchantFixture, TestServer } from "./harness.ts";
import { cardFields, getPage, hiddenInputs, type PageResponse } from "./shopper.ts";

type Shop = Pick<TestServer, "baseUrl" | "api"> & Pick<MerchantFixture, "terminalIdentifier">;

/** The WooCommerce plugin's create body: `Name`/`Amount` items and a 5-minute expiry. */
export function wooCommerceBody(shop: Pick<MerchantFixture, "terminalIdentifier">, overrides: Record<string, unknown> = {}) {
  return {
    amount: 489000,
    currency: "ISK",
    returnUrl: "http://shop.example/checkout/order-received/1042/?key=wc_order_abc&utm=1",
    reference: "1042",
    terminalIdentifier: shop.terminalIdentifier,
    expiresAt: new Date(Date.now() + 5 * 60_000).toISOString(),
    culture: "en",
    items: [
      { Name: "Lopapeysa", Amount: 459000, Quantity: 1, UnitPrice: 459000 },
      { Name: "Shipping", Amount: 30000 },
    ],
    ...overrides,
  };
}

/** Creates a session through the API (trailing slash, as WooCommerce posts); returns the answer's body. */
export async function createSession(
  shop: Shop,
  overrides: Record<string, unknown> = {},
): Promise<{ checkoutReference: string; url: string }> {
  const response = await shop.api("POST", "/api/v1/hostedcheckout/", wooCommerceBody(shop, overrides));
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body;
}

export function sessionStatus(shop: Shop, checkoutReference: string, method = "GET"): Promise<ApiResponse> {
  return shop.api(method, `/api/v1/hostedcheckout/status/${checkoutReference}`);
}

export async function postSessionForm(baseUrl: string, checkoutReference: string, fields: Record<string, string>): Promise<PageResponse> {
  const response = await fetch(`${baseUrl}/checkout/${checkoutReference}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, headers: response.headers, html: await response.text(), location: response.headers.get("location") };
}

/** Opens the session's page and posts its form with a card; an unopened page is returned as it is. */
export async function paySession(baseUrl: string, checkoutReference: string, card?: string): Promise<PageResponse> {
  const page = await getPage(baseUrl, `/checkout/${checkoutReference}`);
  if (page.status !== 200) return page;
  return postSessionForm(baseUrl, checkoutReference, { ...hiddenInputs(page.html), ...cardFields(card) });
}
