// What the SIGTERM tests of `paylink serve` and `paylink worker` share: clean-ups run after the file,
// a webhook receiver that never answers (a send in flight at shutdown), a shop set up through the
// admin API whose first sale queues a webhook to it, and the check that a stopped process handed
// every claimed delivery back.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after } from "node:test";
import type { Database } from "../../src/db/connect.ts";
import { cardFields, createLink, pay } from "./shopper.ts";

/** Clean-ups run in reverse order once the file's tests are done, failing or not. */
export function cleanupsAfterFile(): Array<() => Promise<unknown>> {
  const cleanups: Array<() => Promise<unknown>> = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });
  return cleanups;
}

/** A receiver that holds every webhook without answering; `arrived` settles at the first. */
export async function hangingReceiver(cleanups: Array<() => Promise<unknown>>): Promise<{ url: string; arrived: Promise<void> }> {
  let webhookArrived: () => void = () => {};
  const arrived = new Promise<void>((resolve) => (webhookArrived = resolve));
  const receiver = createServer(() => webhookArrived()).listen(0, "127.0.0.1");
  await new Promise((resolve) => receiver.once("listening", resolve));
  cleanups.push(async () => {
    receiver.closeAllConnections();
    receiver.close();
  });
  return { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`, arrived };
}

/**
 * A merchant with a terminal, an API key and a webhook endpoint at `webhookUrl`, made through the
 * admin API of the process at `baseUrl`; one of its links is paid, so a webhook is queued.
 */
export async function shopWithOneSale(baseUrl: string, adminToken: string, name: string, webhookUrl: string) {
  const admin = async (path: string, body: unknown = {}): Promise<any> => {
    const response = await fetch(`${baseUrl}/admin/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    assert.equal(response.status, 200);
    return response.json();
  };
  const { merchantId } = await admin("/merchants", { name });
  const { terminalIdentifier } = await admin(`/merchants/${merchantId}/terminals`);
  const { apiKey } = await admin(`/merchants/${merchantId}/apikeys`);
  await admin(`/merchants/${merchantId}/webhooks`, { url: webhookUrl });
  const reference = await createLink({ baseUrl, apiKey, terminalIdentifier });
  assert.equal((await pay(baseUrl, reference, cardFields())).status, 200);
  return { merchantId: merchantId as string, terminalIdentifier: terminalIdentifier as string, apiKey: apiKey as string };
}

/** Every delivery of the merchant is pending with no lease: not sent, not failed, free for the next worker. */
export async function assertDeliveriesHandedBack(db: Database, merchantId: string): Promise<void> {
  const deliveries = await db
    .selectFrom("webhook_deliveries")
    .select(["state", "lease_token"])
    .where("merchant_id", "=", merchantId)
    .execute();
  assert.ok(deliveries.length > 0);
  for (const delivery of deliveries) {
    assert.equal(delivery.state, "pending", "not delivered, not failed: sent again by the next worker");
    assert.equal(delivery.lease_token, null, "the claim was handed back");
  }
}
