// The after-sale scenarios (issue #11): a saved-card (token) payment, POST /api/v1/payment, and a
// partial refund, POST /api/v1/modification/refund. The card is saved the way a shopper saves one
// (a TokenizeByLink link paid through its checkout page); the refunds take 1 kr. at a time from the
// token payments the first scenario made, in turn, so no single balance row is hot.
import { cardFields, pay } from "../test/support/shopper.ts";
import type { Paylink } from "./processes.ts";
import type { Scenario } from "./scenarios.ts";

async function api(paylink: Paylink, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${paylink.baseUrl}/api/v1${path}`, {
    method,
    headers: { "x-api-key": paylink.apiKey, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const parsed = (await response.json()) as any;
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

export async function afterSaleScenarios(paylink: Paylink): Promise<Scenario[]> {
  const link = await api(paylink, "POST", "/paymentlinks/create", {
    type: "TokenizeByLink",
    terminalIdentifier: paylink.terminalIdentifier,
    amount: 0,
    currency: "ISK",
    recurringProcessingModel: "Subscription",
  });
  const saved = await pay(paylink.baseUrl, link.paymentLinkReference, cardFields());
  if (saved.status !== 303 && saved.status !== 200) throw new Error(`saving the card: ${saved.status}`);
  const token = (await api(paylink, "GET", `/paymentlinks/${link.paymentLinkReference}`)).paymentLink.submissions[0]?.token;
  if (!token) throw new Error("no token after saving the card");
  const charge = JSON.stringify({
    terminalIdentifier: paylink.terminalIdentifier,
    amount: 129900,
    currency: "ISK",
    reference: "bench-order",
    tokenDetails: { tokenValue: token, recurringProcessingModel: "Subscription" },
    shopperIp: "203.0.113.7",
    origin: "https://shop.example",
    channel: "Web",
    returnUrl: "https://shop.example/return",
  });
  const payfacReferences: string[] = [(await api(paylink, "POST", "/payment", JSON.parse(charge))).payfacReference];
  let next = 0;
  const headers = { "x-api-key": paylink.apiKey, "content-type": "application/json" };
  return [
    {
      name: "token payment",
      against: "insert",
      options: {
        url: paylink.baseUrl,
        requests: [
          {
            method: "POST",
            path: "/api/v1/payment",
            headers,
            body: charge,
            onResponse: (status, body) => {
              if (status === 200) payfacReferences.push((JSON.parse(body) as { payfacReference: string }).payfacReference);
            },
          },
        ],
      },
    },
    {
      name: "refund",
      against: "insert",
      options: {
        url: paylink.baseUrl,
        requests: [
          {
            method: "POST",
            path: "/api/v1/modification/refund",
            headers,
            setupRequest: (request) => ({
              ...request,
              body: JSON.stringify({
                payfacReference: payfacReferences[next++ % payfacReferences.length],
                amount: 100,
                currency: "ISK",
                refundReason: "RETURN",
              }),
            }),
          },
        ],
      },
    },
  ];
}
