// The HTTP scenarios, each loaded with autocannon against Paylink and compared with its baseline:
// create (PayByLink, 3 items) and checkout page/payment against the baseline INSERT, get and list
// against the baseline primary-key SELECT, /healthz against a bare Fastify route.

import type { Options } from "autocannon";
import { cardFields, hiddenInputs, pay } from "../test/support/shopper.ts";
import { afterSaleScenarios } from "./after-sale.ts";
import type { Paylink } from "./processes.ts";

export const CREATE_BODY = (terminalIdentifier: string) => ({
  type: "PayByLink",
  terminalIdentifier,
  amount: 12900,
  currency: "ISK",
  description: "Bench order",
  returnUrl: "http://127.0.0.1:9/thanks",
  items: [
    { name: "Lopapeysa", quantity: 1, unitPrice: 9900, amountWithoutDiscount: 9900, amount: 9900 },
    { name: "Húfa", quantity: 2, unitPrice: 1000, amountWithoutDiscount: 2000, amount: 2000 },
    { name: "Vettlingar", quantity: 1, unitPrice: 1000, amountWithoutDiscount: 1000, amount: 1000 },
  ],
});

export async function createLinkFor(paylink: Paylink): Promise<string> {
  const response = await fetch(`${paylink.baseUrl}/api/v1/paymentlinks/create`, {
    method: "POST",
    headers: { "x-api-key": paylink.apiKey, "content-type": "application/json" },
    body: JSON.stringify(CREATE_BODY(paylink.terminalIdentifier)),
  });
  const body = (await response.json()) as any;
  if (response.status !== 200) throw new Error(`create: ${response.status} ${JSON.stringify(body)}`);
  return body.paymentLinkReference as string;
}

export interface Scenario {
  name: string;
  /** What it is compared with: the baseline INSERT, the baseline SELECT or the bare route. */
  against: "insert" | "select" | "bare";
  options: Options;
  /** Requests per counted unit (a payment is two: the page and the form post). */
  perUnit?: number;
}

/** The baseline program's requests; the INSERT needs nothing, the SELECT reads one row made here. */
export async function baselineRequests(baseUrl: string): Promise<Record<"insert" | "select" | "bare", Options>> {
  const body = JSON.stringify(CREATE_BODY("0123456789ab"));
  const insert: Options = { url: `${baseUrl}/items`, method: "POST", headers: { "content-type": "application/json" }, body };
  const response = await fetch(insert.url, { method: "POST", headers: insert.headers!, body });
  const { reference } = (await response.json()) as { reference: string };
  return { insert, select: { url: `${baseUrl}/items/${reference}` }, bare: { url: `${baseUrl}/healthz` } };
}

/**
 * Paylink's scenarios: /healthz, create, get (a link with 20 payments), list (page of 20), the
 * checkout page and a checkout payment (the page for its hidden inputs, then the form post).
 */
export async function paylinkScenarios(paylink: Paylink): Promise<Scenario[]> {
  const headers = { "x-api-key": paylink.apiKey, "content-type": "application/json" };
  const reference = await createLinkFor(paylink);
  for (let i = 0; i < 20; i++) {
    const payment = await pay(paylink.baseUrl, reference);
    if (payment.status !== 303) throw new Error(`payment for the get scenario: ${payment.status}`);
  }
  const api = `${paylink.baseUrl}/api/v1/paymentlinks`;
  const form = Object.fromEntries(new URLSearchParams(cardFields()));
  const afterSale = await afterSaleScenarios(paylink);
  return [
    { name: "/healthz", against: "bare", options: { url: `${paylink.baseUrl}/healthz` } },
    {
      name: "create",
      against: "insert",
      options: { url: `${api}/create`, method: "POST", headers, body: JSON.stringify(CREATE_BODY(paylink.terminalIdentifier)) },
    },
    { name: "get", against: "select", options: { url: `${api}/${reference}`, headers } },
    { name: "list", against: "select", options: { url: `${api}?pageSize=20`, headers } },
    { name: "checkout page", against: "insert", options: { url: `${paylink.baseUrl}/pay/${reference}` } },
    {
      name: "checkout payment",
      against: "insert",
      perUnit: 2,
      options: {
        url: paylink.baseUrl,
        requests: [
          {
            method: "GET",
            path: `/pay/${reference}`,
            onResponse: (_status, body, context) => {
              context.form = new URLSearchParams({ ...hiddenInputs(body), ...form }).toString();
            },
          },
          {
            method: "POST",
            path: `/pay/${reference}`,
            headers: { "content-type": "application/x-www-form-urlencoded" },
            setupRequest: (request, context) => ({ ...request, body: context.form as string }),
          },
        ],
      },
    },
    ...afterSale,
  ];
}
