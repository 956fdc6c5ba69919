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
import { type ProcessorShop, startShopWithProcessor } from "./processor-shop.ts";

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
  /**
   * Charges of this saved card want the shopper first: the proxy answers `RedirectShopper` (the
   * sandbox behind it never does) with a page of its own; the shopper's post there makes the charge
   * at the gateway, whose Authorization webhook then decides it, and goes back to the returnUrl.
   */
  requireShopperFor(token: string): void;
  /** Holds the gateway's webhooks back (they stay queued there) until resumeWebhooks. */
  pauseWebhooks(): Promise<void>;
  resumeWebhooks(): void;
  /** The gateway's webhook endpoint pointing at `url`; resolves with its HMAC key. */
  sendWebhooksTo(url: string): Promise<string>;
  close(): Promise<void>;
}

export async function startLocalGateway(backend: TestBackend): Promise<LocalGateway> {
  const server = await startTestServer({ backend, allowPrivateTargets: true });
  const startWorker = () => new WebhookWorker({ db: server.db, keyring: testKeyring(), allowPrivate: true }).start();
  let worker: WebhookWorker | undefined = startWorker();
  const sent: SentRequest[] = [];
  let losing: RegExp | undefined;
  const shopperTokens = new Set<string>();
  /** Idempotency-Key → the charge waiting for its shopper: the request as sent, and the challenge page's id. */
  const challenges = new Map<string, { id: string; body: string; headers: Record<string, string> }>();

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
      if (await answerChallenge(method, path, body, headers, response)) return;
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
  /** The 3-D Secure stand-in: true when it answered the request itself. */
  async function answerChallenge(
    method: string,
    path: string,
    body: string,
    headers: Record<string, string>,
    response: import("node:http").ServerResponse,
  ): Promise<boolean> {
    if (method === "POST" && path === "/api/v1/payment") {
      const charge = JSON.parse(body) as { tokenDetails?: { tokenValue?: string }; reference: string; amount: number; currency: string };
      if (!shopperTokens.has(charge.tokenDetails?.tokenValue ?? "")) return false;
      const key = headers["idempotency-key"] ?? "";
      // The same key answers the same, as the gateway's idempotency does.
      let challenge = challenges.get(key);
      if (!challenge) {
        challenge = { id: `3ds${challenges.size + 1}x${Date.now()}`, body, headers };
        challenges.set(key, challenge);
      }
      sent.push({ method, path, body, status: 200 });
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          resultCode: "RedirectShopper",
          payfacReference: "",
          checkoutReference: "",
          merchantReference: charge.reference,
          amount: charge.amount,
          currency: charge.currency,
          redirect: { url: `${proxyOrigin}/3ds/${challenge.id}`, method: "GET" },
          additionalData: { cardNumber: "", cardSummary: "", paymentMethod: "", cardUsage: "" },
        }),
      );
      return true;
    }
    const match = /^\/3ds\/([^/?]+)$/.exec(path);
    const challenge = match && [...challenges.values()].find((candidate) => candidate.id === match[1]);
    if (!challenge) return false;
    if (method === "GET") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(`<!doctype html><title>3-D Secure</title><form method="post"><button>Confirm</button></form>`);
      return true;
    }
    // The shopper confirmed: the gateway makes the charge now and notifies as it does for any.
    const { "idempotency-key": _key, ...rest } = challenge.headers;
    const made = await fetch(`${gatewayOrigin}/api/v1/payment`, { method: "POST", headers: rest, body: challenge.body });
    sent.push({ method: "POST", path: "/api/v1/payment", body: challenge.body, status: made.status });
    const returnUrl = (JSON.parse(challenge.body) as { returnUrl?: string | null }).returnUrl;
    response.writeHead(303, { location: returnUrl ?? "/" });
    response.end();
    return true;
  }

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
    requireShopperFor(token) {
      shopperTokens.add(token);
    },
    async pauseWebhooks() {
      await worker?.stop(1000);
      worker = undefined;
    },
    resumeWebhooks() {
      worker ??= startWorker();
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
      await worker?.stop(1000);
      await server.close();
    },
  };
}

export interface ShopOnGateway extends ProcessorShop {
  gateway: LocalGateway;
  /** The key the gateway signs its webhooks to the shop with. */
  gatewayHmacKey: string;
}

/** A shop whose terminal takes its money through a local gateway, configured as an operator would, with webhooks flowing both ways. */
export async function startShopOnGateway(backend: TestBackend): Promise<ShopOnGateway> {
  const gateway = await startLocalGateway(backend);
  let gatewayHmacKey = "";
  const shop = await startShopWithProcessor(backend, {
    async configure(webhookUrl) {
      gatewayHmacKey = await gateway.sendWebhooksTo(webhookUrl);
      return {
        type: "straumur",
        environment: "test",
        apiKey: gateway.server.apiKey,
        terminalIdentifier: gateway.server.terminalIdentifier,
        hmacKey: gatewayHmacKey,
        baseUrl: gateway.baseUrl,
      };
    },
    close: () => gateway.close(),
  });
  return { ...shop, gateway, gatewayHmacKey };
}
