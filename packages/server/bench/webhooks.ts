// Webhooks: delivery throughput from a backlog (rows written straight into webhook_deliveries, as
// if payments had queued them while the receiver was down) against a bare fetch loop with the
// worker's concurrency (16) to the same receiver, and payment → receipt latency over payments
// made one at a time through the checkout page.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { cardFields, pay } from "../test/support/shopper.ts";
import { withClient } from "./databases.ts";
import type { Paylink } from "./processes.ts";
import { createLinkFor } from "./scenarios.ts";

const WORKER_CONCURRENCY = 16;

interface Receiver {
  url: string;
  server: Server;
  received: number;
  /** Resolves when `count` messages have arrived in total. */
  waitFor(count: number, timeoutMs: number): Promise<void>;
  arrivals: Map<string, number>;
  waiters: Map<string, () => void>;
}

export async function startReceiver(): Promise<Receiver> {
  let waitingFor: { count: number; resolve: () => void } | undefined;
  const receiver: Receiver = {
    url: "",
    server: createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const at = performance.now();
        receiver.received += 1;
        const reference = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { checkoutReference?: string }).checkoutReference;
        if (reference) {
          receiver.arrivals.set(reference, at);
          receiver.waiters.get(reference)?.();
        }
        response.writeHead(200).end("ok");
        if (waitingFor && receiver.received >= waitingFor.count) waitingFor.resolve();
      });
    }),
    received: 0,
    arrivals: new Map(),
    waiters: new Map(),
    waitFor: (count, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        if (receiver.received >= count) return resolve();
        const timer = setTimeout(
          () => reject(new Error(`only ${receiver.received} of ${count} webhooks within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waitingFor = {
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      }),
  };
  await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

const MESSAGE = {
  checkoutReference: "bench",
  payfacReference: "bench-payfac",
  merchantReference: null,
  amount: "12900",
  currency: "ISK",
  reason: null,
  success: "true",
};

/** Messages per second: the worker emptying a backlog of `count`, from the insert to the last arrival. */
export async function webhookThroughput(paylink: Paylink, databaseUrl: string, receiver: Receiver, count: number): Promise<number> {
  const before = receiver.received;
  const started = performance.now();
  await withClient(databaseUrl, (client) =>
    client.query(
      `INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_type, payload)
       SELECT 'whd_bench' || g, merchant_id, id, 'Authorization', jsonb_set($2::jsonb, '{checkoutReference}', to_jsonb('bench' || g))
       FROM webhook_endpoints, generate_series(1, $3::int) g WHERE merchant_id = $1`,
      [paylink.merchantId, JSON.stringify(MESSAGE), count],
    ),
  );
  await receiver.waitFor(before + count, 600_000);
  return count / ((performance.now() - started) / 1000);
}

/** Messages per second: `count` POSTs by a bare fetch loop, WORKER_CONCURRENCY at a time. */
export async function fetchLoopThroughput(receiver: Receiver, count: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  const body = JSON.stringify({ ...MESSAGE, hmacSignature: "0".repeat(64) });
  await Promise.all(
    Array.from({ length: WORKER_CONCURRENCY }, async () => {
      while (next < count) {
        next += 1;
        const response = await fetch(receiver.url, { method: "POST", headers: { "content-type": "application/json" }, body });
        await response.arrayBuffer();
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

/** Payment response → receiver, in ms, for `payments` payments made one after another (after 5 unmeasured). */
export async function paymentToReceipt(paylink: Paylink, receiver: Receiver, payments: number): Promise<number[]> {
  const reference = await createLinkFor(paylink);
  const latencies: number[] = [];
  for (let i = 0; i < payments + 5; i++) {
    const payment = await pay(paylink.baseUrl, reference, cardFields());
    const respondedAt = performance.now();
    const checkoutReference = payment.checkoutReference;
    if (payment.status !== 303 || !checkoutReference) throw new Error(`payment: ${payment.status}`);
    if (!receiver.arrivals.has(checkoutReference)) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no webhook for ${checkoutReference} within 10 s`)), 10_000);
        receiver.waiters.set(checkoutReference, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    if (i >= 5) latencies.push(receiver.arrivals.get(checkoutReference)! - respondedAt);
  }
  return latencies.sort((a, b) => a - b);
}

export function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}
