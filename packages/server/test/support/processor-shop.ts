// A shop whose terminal takes its money through a real processor's adapter, set up as an operator
// would: the terminal's processor configured through the admin API (the fake's base allowed for
// tests), the processor told the terminal's webhook address, the merchant's own webhooks going to a
// receiver, and the webhook worker running. The start of every end-to-end test of an adapter; each
// processor's file (gateway.ts, adyen-shop.ts, stripe-shop.ts) adds only its fake.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { sql } from "kysely";
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

/**
 * No card number or processor secret is in what the shop logged, in a dump of its database (also
 * lower-cased, as some columns keep hex), or in the admin API's list of terminals.
 */
export async function assertNothingLeaked(context: ProcessorShop, cards: string[], processorSecrets: string[]): Promise<void> {
  const { shop } = context;
  const logged = context.logs.join("\n");
  assert.ok(logged.length > 0, "the server logged");
  const dump = await databaseText(shop);
  for (const secret of [...cards, ...processorSecrets]) {
    assert.ok(!logged.includes(secret), "not in the logs");
    assert.ok(!dump.includes(secret), "not in the database");
    assert.ok(!dump.includes(secret.toLowerCase()), "not in the database");
  }
  const listed = await shop.app.inject({
    method: "GET",
    url: `/admin/v1/merchants/${shop.merchantId}/terminals`,
    headers: { authorization: `Bearer ${shop.adminToken}` },
  });
  for (const secret of processorSecrets) assert.ok(!listed.body.includes(secret), "not in the admin API");
}

/** Every row of every table of the shop's database, as text: what a dump would hold. */
async function databaseText(server: TestServer): Promise<string> {
  const tables = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(
    server.db,
  );
  const parts: string[] = [];
  for (const { table_name } of tables.rows) {
    const rows = await sql<{ row: string }>`SELECT row_to_json(t)::text AS row FROM ${sql.table(table_name)} t`.execute(server.db);
    for (const row of rows.rows) parts.push(row.row);
  }
  return parts.join("\n");
}
