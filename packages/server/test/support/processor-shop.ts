// A shop whose terminal takes its money through a real processor's adapter, set up as an operator
// would: the terminal's processor configured through the admin API (the fake's base allowed for
// tests), the processor told the terminal's webhook address, the merchant's own webhooks going to a
// receiver, and the webhook worker running. The start of every end-to-end test of an adapter; each
// processor's file (gateway.ts, adyen-shop.ts, stripe-shop.ts) adds only its fake.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { createLogger } from "../../src/logging.ts";
import { WebhookWorker } from "../../src/webhooks/worker.ts";
import { type Receiver, startReceiver } from "../webhooks/support.ts";
import type { TestBackend } from "./databases.ts";
import { startTestServer, type TestServer } from "./harness.ts";
import { testKeyring } from "./keyring.ts";

export interface ProcessorShop {
  /** The Paylink under test. */
  shop: TestServer;
  /** The shop's merchant's own webhook receiver. */
  merchantReceiver: Receiver;
  /** Everything the shop logged, at debug level. */
  logs: string[];
  /** The merchant's webhooks about one merchantReference, in arrival order. */
  merchantWebhooks(reference: string): any[];
  close(): Promise<void>;
}

export async function startShopWithProcessor(
  backend: TestBackend,
  processor: {
    /** The terminal's processor configuration (the admin API's body), given the address the processor must notify. */
    configure(webhookUrl: string): Promise<Record<string, unknown>> | Record<string, unknown>;
    /** Stops the processor's fake. */
    close(): Promise<void>;
  },
): Promise<ProcessorShop> {
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const shop = await startTestServer({
    backend,
    allowPrivateTargets: true,
    allowProcessorBaseUrls: true,
    logger: createLogger("debug", logStream),
  });
  // The address the operator registers at the processor, as the admin API reports it.
  const webhookUrl = `${shop.baseUrl}/processors/${shop.terminalIdentifier}/webhook`;
  const configured = await shop.app.inject({
    method: "PUT",
    url: `/admin/v1/merchants/${shop.merchantId}/terminals/${shop.terminalIdentifier}/processor`,
    headers: { authorization: `Bearer ${shop.adminToken}` },
    payload: { processor: await processor.configure(webhookUrl) },
  });
  assert.equal(configured.statusCode, 200, configured.body);
  assert.equal(configured.json().webhookUrl, webhookUrl);
  const merchantReceiver = await startReceiver();
  const endpoint = await shop.app.inject({
    method: "POST",
    url: `/admin/v1/merchants/${shop.merchantId}/webhooks`,
    headers: { authorization: `Bearer ${shop.adminToken}` },
    payload: { url: merchantReceiver.url },
  });
  assert.equal(endpoint.statusCode, 200, endpoint.body);
  const worker = new WebhookWorker({ db: shop.db, keyring: testKeyring(), allowPrivate: true }).start();
  return {
    shop,
    merchantReceiver,
    logs,
    merchantWebhooks: (reference) =>
      merchantReceiver.requests.map((request) => JSON.parse(request.body)).filter((body) => body.merchantReference === reference),
    async close() {
      await worker.stop(1000);
      await shop.close();
      await processor.close();
      await merchantReceiver.close();
    },
  };
}
