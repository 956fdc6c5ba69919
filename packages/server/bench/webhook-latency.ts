// Webhook latency (issue #5 acceptance 5): the time from a payment's HTTP response to the
// merchant's receiver getting the webhook, over N payments through the real checkout page of a
// real `paylink serve` process.
//
//   npx tsx packages/server/bench/webhook-latency.ts [payments=200]
//   DATABASE_URL=postgres://… npx tsx packages/server/bench/webhook-latency.ts   (PostgreSQL; default: embedded)
//
// Payments are made one at a time, so each latency is that of an idle server woken by its own
// payment. A webhook can arrive before the shopper has read the whole response (it is queued
// and the worker woken before the response is sent); such a latency is negative, and counted
// as it is.

import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServerProcess } from "../test/support/process.ts";
import { createLink, hiddenInputs } from "../test/support/shopper.ts";

const PAYMENTS = Number(process.argv[2] ?? 200);
const ADMIN_TOKEN = "bench-admin-token-0123456789";

const arrivals = new Map<string, number>();
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const at = performance.now();
    const reference = JSON.parse(Buffer.concat(chunks).toString("utf8")).checkoutReference as string;
    arrivals.set(reference, at);
    response.writeHead(200).end("ok");
    waiters.get(reference)?.();
  });
});
const waiters = new Map<string, () => void>();
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

const dataDir = mkdtempSync(join(tmpdir(), "paylink-bench-"));
const env: Record<string, string> = { PAYLINK_ADMIN_TOKEN: ADMIN_TOKEN, PAYLINK_WEBHOOK_ALLOW_PRIVATE: "true", LOG_LEVEL: "error" };
if (process.env.DATABASE_URL) env.DATABASE_URL = process.env.DATABASE_URL;
else env.PAYLINK_DATA_DIR = dataDir;
const server = await startServerProcess(env);

try {
  const admin = async (path: string, body: unknown) => {
    const response = await fetch(`${server.baseUrl}/admin/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (response.status !== 200) throw new Error(`admin ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as any;
  };
  const { merchantId } = await admin("/merchants", { name: "Bench shop" });
  const { terminalIdentifier } = await admin(`/merchants/${merchantId}/terminals`, {});
  const { apiKey } = await admin(`/merchants/${merchantId}/apikeys`, {});
  await admin(`/merchants/${merchantId}/webhooks`, { url: receiverUrl });
  const linkReference = await createLink(
    { baseUrl: server.baseUrl, apiKey, terminalIdentifier },
    { amount: 1000, returnUrl: "http://localhost/thanks" },
  );

  const latencies: number[] = [];
  const warmup = 10;
  for (let i = 0; i < PAYMENTS + warmup; i++) {
    const page = await fetch(`${server.baseUrl}/pay/${linkReference}`);
    const form = new URLSearchParams({
      ...hiddenInputs(await page.text()),
      cardNumber: "4111111111111111",
      cardExpiry: "12/39",
      cardCvc: "123",
      cardHolder: "Bench",
    });
    const response = await fetch(`${server.baseUrl}/pay/${linkReference}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
      redirect: "manual",
    });
    await response.arrayBuffer();
    const respondedAt = performance.now();
    const reference = new URL(response.headers.get("location")!).searchParams.get("checkoutReference")!;
    if (!arrivals.has(reference)) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no webhook for ${reference} within 10 s`)), 10_000);
        waiters.set(reference, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    if (i >= warmup) latencies.push(arrivals.get(reference)! - respondedAt);
  }

  latencies.sort((x, y) => x - y);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  const format = (ms: number) => `${ms.toFixed(1)} ms`;
  console.log(
    `webhook latency, payment response → receiver, ${latencies.length} payments (${env.DATABASE_URL ? "PostgreSQL" : "embedded database"}):`,
  );
  console.log(
    `  median ${format(at(0.5))}   p95 ${format(at(0.95))}   p99 ${format(at(0.99))}   min ${format(latencies[0]!)}   max ${format(latencies.at(-1)!)}`,
  );
} finally {
  await server.stop();
  receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
}
