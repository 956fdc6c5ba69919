// Helpers of the webhook tests: a real HTTP receiver on 127.0.0.1, an independent check of both
// signatures (written from docs/webhooks.md#the-hmacsignature and the Standard Webhooks spec, not with the SDK), and
// a way to queue deliveries the way a payment does.
import { createHmac, randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import type { Database } from "../../src/db/connect.ts";
import { createMerchant } from "../../src/db/merchants-repository.ts";
import { createWebhookEndpoint } from "../../src/db/webhook-endpoints-repository.ts";
import type { SecretKeyring } from "../../src/security/keyring.ts";
import type { AttemptRecord } from "../../src/webhooks/delivery-queue.ts";
import {
  enqueuePaymentWebhook,
  notifyWebhookWorker,
  type UnsignedPaymentMessage,
  type WebhookEventType,
} from "../../src/webhooks/outbox.ts";

export { TEST_SECRET_KEY, testKeyring } from "../support/keyring.ts";

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Date.now() when the body had arrived. */
  receivedAt: number;
}

export type Responder = (
  request: ReceivedRequest,
  index: number,
) => { status: number; headers?: Record<string, string>; body?: string; delayMs?: number };

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(respond: Responder = () => ({ status: 200, body: "ok" }), port = 0): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const received: ReceivedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        receivedAt: Date.now(),
      };
      const index = requests.push(received) - 1;
      for (const waiter of [...waiters]) {
        if (requests.length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
      const answer = respond(received, index);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? "");
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actualPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actualPort}/hooks/paylink`,
    port: actualPort,
    requests,
    waitFor(count, timeoutMs = 10_000) {
      if (requests.length >= count) return Promise.resolve(requests.slice());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(requests.slice());
          },
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The hmacSignature of docs/webhooks.md, written out again here: the test must not trust the code it checks. */
export function independentPaymentSignature(message: Record<string, unknown>, hexKey: string): string {
  const fields = ["checkoutReference", "payfacReference", "merchantReference", "amount", "currency", "reason", "success"];
  const payload = fields.map((field) => (message[field] === null || message[field] === undefined ? "" : String(message[field]))).join(":");
  const key = Buffer.from(hexKey.length % 2 === 1 ? `${hexKey}0` : hexKey, "hex");
  return createHmac("sha256", key).update(Buffer.from(payload, "utf8")).digest("base64");
}

/** Standard Webhooks: v1,base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}")). */
export function independentStandardSignature(id: string, timestamp: string, body: string, hexKey: string): string {
  return `v1,${createHmac("sha256", Buffer.from(hexKey, "hex")).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

export interface EndpointFixture {
  merchantId: string;
  webhookId: string;
  apiKey: string;
  hmacKey: string;
}

export async function addMerchantWithEndpoint(db: Database, keyring: SecretKeyring, url: string): Promise<EndpointFixture> {
  const { merchantId } = await createMerchant(db, "Webhook test merchant");
  const { endpoint, secrets } = await createWebhookEndpoint(db, keyring, merchantId, {
    url,
    apiKey: `Bearer ${randomBytes(8).toString("hex")}`,
  });
  return { merchantId, webhookId: endpoint.webhookId, ...secrets };
}

export function sampleMessage(overrides: Partial<UnsignedPaymentMessage> = {}): UnsignedPaymentMessage {
  return {
    checkoutReference: `chk${randomBytes(8).toString("hex")}`,
    payfacReference: randomBytes(8).toString("hex").toUpperCase(),
    merchantReference: `lnk${randomBytes(6).toString("hex")}`,
    amount: "489000",
    currency: "ISK",
    reason: "123456:1111:03/2030",
    success: "true",
    additionalData: { eventType: "Authorization", cardNumber: "411111******1111", cardSummary: "1111", authCode: "123456" },
    ...overrides,
  };
}

/** Queues a message the way a payment does (in a transaction), and wakes the worker. Returns the delivery ids. */
export async function enqueue(
  db: Database,
  merchantId: string,
  message: UnsignedPaymentMessage,
  eventType: WebhookEventType = "Authorization",
): Promise<string[]> {
  const ids = await db.transaction().execute(async (trx) => {
    await enqueuePaymentWebhook(trx, merchantId, eventType, message);
    const rows = await trx
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("merchant_id", "=", merchantId)
      .where(sql<string>`payload->>'checkoutReference'`, "=", message.checkoutReference ?? "")
      .execute();
    return rows.map((row) => row.id);
  });
  notifyWebhookWorker();
  return ids;
}

export async function deliveryRow(db: Database, id: string) {
  return db.selectFrom("webhook_deliveries").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

export async function attemptRows(db: Database, id: string) {
  return db.selectFrom("webhook_attempts").selectAll().where("delivery_id", "=", id).orderBy("attempted_at").orderBy("id").execute();
}

/** An attempt the receiver answered with 200: the delivery is done. */
export function deliveredAttempt(): AttemptRecord {
  return {
    attemptedAt: new Date(),
    statusCode: 200,
    latencyMs: 3,
    responseExcerpt: "ok",
    error: null,
    next: { state: "delivered" },
    verdict: "answered",
  };
}
