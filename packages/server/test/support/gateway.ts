// The live gateway, stood up locally for tests of the Straumur adapter: a second Paylink server
// with the sandbox processor. Paylink's API is wire-compatible with the gateway's (its hosted
// checkout, status, webhooks and modifications, docs/api.md), and it validates every request by
// those shapes, refusing unknown fields; so a request the adapter sends wrong fails here as it
// would there. In front of it, a recording HTTP proxy keeps every request the adapter sent with
// the gateway's answer, and can lose one answer on purpose.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebhookWorker } from "../../src/webhooks/worker.ts";
import type { TestBackend } from "./databases.ts";
import { startTestServer, type TestServer } from "./harness.ts";
import { testKeyring } from "./keyring.ts";

export interface SentRequest {
  method: string;
  path: string;
  body: string;
  /** The gateway's answer. */
  status: number;
}

export interface LocalGateway {
  server: TestServer;
  /** What the adapter is configured with: the proxy's address, the gateway's `/api/v1`. */
  baseUrl: string;
  /** The gateway's public address as the shopper sees it (the proxy's). */
  origin: string;
  /** Every request that went through the proxy, in order. */
  sent: SentRequest[];
  /** The next request matching is forwarded, but its answer never reaches the adapter. */
  loseNextAnswer(path: RegExp): void;
  /** The gateway's webhook endpoint pointing at `url`; resolves with its HMAC key. */
  sendWebhooksTo(url: string): Promise<string>;
  close(): Promise<void>;
}

export async function startLocalGateway(backend: TestBackend): Promise<LocalGateway> {
  const server = await startTestServer({ backend, allowPrivateTargets: true });
  const worker = new WebhookWorker({ db: server.db, keyring: testKeyring(), allowPrivate: true }).start();
  const sent: SentRequest[] = [];
  let losing: RegExp | undefined;

  // The proxy stands for the gateway's one public address (its API and its payment pages alike):
  // the gateway's own address is rewritten to the proxy's in answers, and back in the browser's
  // Origin and Referer, so the shopper's browser and Paylink both only ever see the proxy.
  let proxyOrigin = "";
  const gatewayOrigin = new URL(server.baseUrl).origin;
  const proxy: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value !== "string" || ["host", "connection", "content-length", "accept-encoding"].includes(name)) continue;
        headers[name] = value.replaceAll(proxyOrigin, gatewayOrigin);
      }
      const method = request.method ?? "GET";
      const path = request.url ?? "/";
      const answer = await fetch(`${gatewayOrigin}${path}`, {
        method,
        headers,
        redirect: "manual",
        ...(method === "GET" || method === "HEAD" ? {} : { body }),
      });
      const text = (await answer.text()).replaceAll(gatewayOrigin, proxyOrigin);
      sent.push({ method, path, body, status: answer.status });
      if (losing?.test(path)) {
        losing = undefined;
        request.socket.destroy();
        return;
      }
      const forwarded: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!["content-length", "transfer-encoding", "connection", "content-encoding", "keep-alive"].includes(name)) {
          forwarded[name] = value.replaceAll(gatewayOrigin, proxyOrigin);
        }
      });
      response.writeHead(answer.status, forwarded);
      response.end(text);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as AddressInfo;
  proxyOrigin = `http://127.0.0.1:${port}`;

  return {
    server,
    baseUrl: `${proxyOrigin}/api/v1`,
    origin: proxyOrigin,
    sent,
    loseNextAnswer(path) {
      losing = path;
    },
    async sendWebhooksTo(url) {
      const response = await fetch(`${server.baseUrl}/admin/v1/merchants/${server.merchantId}/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ url }),
      });
      return ((await response.json()) as { hmacKey: string }).hmacKey;
    },
    async close() {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await worker.stop(1000);
      await server.close();
    },
  };
}
