// The manual-capture tests' shortcuts (docs/api.md#capture-and-adjust): a session paid on its
// page, and capture, adjust and reverse bodies as the e-commerce plugins send them.
import assert from "node:assert/strict";
import type { ApiResponse, TestServer } from "./harness.ts";
import { createSession, paySession, sessionStatus } from "./sessions.ts";

type Shop = Pick<TestServer, "baseUrl" | "api" | "terminalIdentifier">;

/** Creates a session (the WooCommerce body, 489000 ISK unless told) and pays it; returns its references. */
export async function paidSession(
  shop: Shop,
  overrides: Record<string, unknown> = {},
): Promise<{ checkoutReference: string; payfacReference: string }> {
  const { checkoutReference } = await createSession(shop, overrides);
  const paid = await paySession(shop.baseUrl, checkoutReference);
  assert.equal(paid.status, 303, `paying the session answered ${paid.status}`);
  const status = await sessionStatus(shop, checkoutReference);
  assert.equal(status.body.status, "Completed");
  return { checkoutReference, payfacReference: status.body.payfacReference };
}

export function capture(
  shop: Pick<TestServer, "api">,
  payfacReference: string,
  amount: number | string,
  currency = "ISK",
): Promise<ApiResponse> {
  return shop.api("POST", "/api/v1/modification/capture", { reference: "1042", payfacReference, amount, currency });
}

export function adjust(
  shop: Pick<TestServer, "api">,
  payfacReference: string,
  amount: number | string,
  currency = "ISK",
): Promise<ApiResponse> {
  return shop.api("POST", "/api/v1/modification/adjust", { reference: "1042", payfacReference, amount, currency });
}

export function reverse(shop: Pick<TestServer, "api">, payfacReference: string): Promise<ApiResponse> {
  return shop.api("POST", "/api/v1/modification/reverse", { payfacReference, reference: "1042" });
}

export async function readPayment(shop: Pick<TestServer, "api">, payfacReference: string) {
  const response = await shop.api("GET", `/api/v1/payments/${payfacReference}`);
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body.payment;
}
