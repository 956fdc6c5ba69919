// One attempt over real HTTP, and the SSRF guard (docs/webhooks.md#where-webhooks-may-go) that decides where it may go.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, test } from "node:test";
import { checkWebhookUrl, isPublicAddress, OutboundTargetRefused, vetOutboundHost } from "../../src/net/outbound-guard.ts";
import { buildWebhookRequest } from "../../src/webhooks/message.ts";
import { sendWebhook } from "../../src/webhooks/send.ts";
import { startUnacceptingPort } from "./receivers.ts";
import { type Receiver, sampleMessage, startReceiver } from "./support.ts";

const secrets = { apiKey: "Bearer test", hmacKey: "ab".repeat(32) };
const request = () => buildWebhookRequest("msg_test", sampleMessage(), secrets, Math.floor(Date.now() / 1000));

describe("SSRF guard", () => {
  test("private, loopback, link-local, unique-local, mapped and reserved addresses are not public", () => {
    for (const address of [
      "127.0.0.1",
      "127.255.0.9",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "198.18.0.1",
      "::1",
      "::",
      "fe80::1",
      "fc00::1",
      "fd12:3456::1",
      "::ffff:127.0.0.1",
      "::ffff:8.8.8.8",
      "ff02::1",
      "2001:db8::1",
      "not an address",
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
    for (const address of [
      "8.8.8.8",
      "1.1.1.1",
      "172.32.0.1",
      "192.169.0.1",
      "100.128.0.1",
      "2606:4700:4700::1111",
      "2a00:1450:4001::200e",
    ]) {
      assert.equal(isPublicAddress(address), true, address);
    }
  });

  test("IPv6 transition addresses are judged by the IPv4 address they carry, or refused", () => {
    const refused = [
      // well-known NAT64 prefix 64:ff9b::/96 with a private, link-local or reserved IPv4 inside
      "64:ff9b::a9fe:a9fe", // 169.254.169.254, cloud metadata
      "64:ff9b::169.254.169.254",
      "64:ff9b::a00:1", // 10.0.0.1
      "64:ff9b::7f00:1", // 127.0.0.1
      "64:ff9b::c0a8:101", // 192.168.1.1
      "64:ff9b::0:0", // 0.0.0.0
      "64:ff9b:0:0:0:0:ac10:1", // 172.16.0.1, uncompressed
      "64:ff9b:1::808:808", // local-use NAT64 prefix: refused whatever it carries
      // IPv4-mapped, dotted and hex (the form URL parsing produces), refused whatever they carry
      "::ffff:169.254.169.254",
      "::ffff:a9fe:a9fe",
      "::ffff:a00:1",
      "::ffff:808:808",
      "0:0:0:0:0:ffff:808:808",
      "::ffff:0:808:808", // SIIT IPv4-translated (::ffff:0:0:0/96)
      // IPv4-compatible ::/96 (deprecated): refused whatever they carry
      "::127.0.0.1",
      "::7f00:1",
      "::a9fe:a9fe",
      "::8.8.8.8",
      "::808:808",
      // 6to4 2002::/16 with a private IPv4 in bits 16–48
      "2002:a9fe:a9fe::1",
      "2002:a00:1::",
      "2002:7f00:1:1:1:1:1:1",
      "2002:c058:6301::", // 192.88.99.1, the 6to4 relay anycast itself
      // other IETF assignments and documentation
      "2001:0:4136:e378:8000:63bf:3fff:fdd2", // Teredo
      "2001:2::1", // benchmarking
      "3fff::1", // documentation (RFC 9637)
      "100::1", // discard-only
      "fec0::1", // site-local
      "4000::1", // unallocated
      "fe80::1%eth0", // with a zone
    ];
    for (const address of refused) assert.equal(isPublicAddress(address), false, address);
    for (const address of ["64:ff9b::808:808", "64:ff9b::8.8.8.8", "64:ff9b::101:101", "2002:808:808::1", "2001:200::1", "2c0f:fb50::1"]) {
      assert.equal(isPublicAddress(address), true, address);
    }
  });

  test("a hostname whose DNS64 answer embeds a private IPv4 address is refused when sending", async () => {
    const dns = async (hostname: string) =>
      ({
        "metadata.example": ["64:ff9b::a9fe:a9fe"],
        "six-to-four.example": ["2002:a00:1::1"],
        "public64.example": ["64:ff9b::5db8:d822"],
      })[hostname]!.map((address) => ({ address, family: 6 }));
    await assert.rejects(
      vetOutboundHost("metadata.example", dns),
      (error: Error) => error instanceof OutboundTargetRefused && /64:ff9b::a9fe:a9fe/.test(error.message),
    );
    await assert.rejects(vetOutboundHost("six-to-four.example", dns), OutboundTargetRefused);
    await assert.rejects(vetOutboundHost("[64:ff9b::10.0.0.1]", dns), OutboundTargetRefused);
    assert.deepEqual(await vetOutboundHost("public64.example", dns), { address: "64:ff9b::5db8:d822", family: 6 });
  });

  test("a hostname is refused when any of its addresses is private; literals and brackets are checked too", async () => {
    const resolver = (answers: Record<string, string[]>) => async (hostname: string) =>
      (answers[hostname] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    const dns = resolver({
      "shop.example": ["93.184.216.34", "2606:2800:220:1::1"],
      "mixed.example": ["93.184.216.34", "10.0.0.5"],
      "empty.example": [],
    });
    assert.deepEqual(await vetOutboundHost("shop.example", dns), { address: "93.184.216.34", family: 4 });
    await assert.rejects(
      vetOutboundHost("mixed.example", dns),
      (error: Error) => error instanceof OutboundTargetRefused && /10\.0\.0\.5/.test(error.message),
    );
    await assert.rejects(vetOutboundHost("empty.example", dns), OutboundTargetRefused);
    await assert.rejects(vetOutboundHost("127.0.0.1", dns), OutboundTargetRefused);
    await assert.rejects(vetOutboundHost("[::1]", dns), OutboundTargetRefused);
    assert.deepEqual(await vetOutboundHost("[2606:4700:4700::1111]", dns), { address: "2606:4700:4700::1111", family: 6 });
    const failing = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    await assert.rejects(vetOutboundHost("nowhere.example", failing), /does not resolve \(ENOTFOUND\)/);
  });

  test("URLs are checked when saved: https, no credentials, no private host unless allowed", () => {
    assert.equal(checkWebhookUrl("https://shop.example/hooks", false), undefined);
    assert.match(checkWebhookUrl("http://shop.example/hooks", false)!, /https/);
    assert.match(checkWebhookUrl("ftp://shop.example/", false)!, /https/);
    assert.match(checkWebhookUrl("not a url", false)!, /absolute URL/);
    assert.match(checkWebhookUrl("https://user:pw@shop.example/", false)!, /password/);
    assert.match(checkWebhookUrl("https://shop.example/#x", false)!, /fragment/);
    for (const url of [
      "https://localhost/",
      "https://127.0.0.1/",
      "https://[::1]/",
      "https://169.254.169.254/latest",
      "https://10.0.0.1/",
      "https://db.internal/",
    ]) {
      assert.match(checkWebhookUrl(url, false) ?? "", /private/, url);
      assert.equal(checkWebhookUrl(url, true), undefined, url);
    }
    assert.equal(checkWebhookUrl("http://127.0.0.1:8080/hooks", true), undefined);
  });
});

describe("sending one attempt", () => {
  const receivers: Receiver[] = [];
  after(async () => {
    for (const receiver of receivers) await receiver.close();
  });
  async function receiver(...args: Parameters<typeof startReceiver>) {
    const started = await startReceiver(...args);
    receivers.push(started);
    return started;
  }

  test("a loopback receiver is refused at send time unless private targets are allowed", async () => {
    const hook = await receiver();
    const refused = await sendWebhook(hook.url, request(), { allowPrivate: false });
    assert.equal(refused.delivered, false);
    assert.equal(refused.statusCode, null);
    assert.match(refused.error ?? "", /^refused: 127\.0\.0\.1 resolves to 127\.0\.0\.1, a private/);
    assert.equal(hook.requests.length, 0);

    // A public-looking name that resolves to loopback: refused on the resolved address.
    const sneaky = await sendWebhook(`http://sneaky.example:${hook.port}/`, request(), {
      allowPrivate: false,
      resolver: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    assert.match(sneaky.error ?? "", /sneaky\.example resolves to 127\.0\.0\.1/);
    assert.equal(hook.requests.length, 0);

    const allowed = await sendWebhook(hook.url, request(), { allowPrivate: true });
    assert.equal(allowed.delivered, true);
    assert.equal(hook.requests.length, 1);
  });

  test("the socket connects to the vetted address, while Host stays the URL's name (no second DNS lookup)", async () => {
    const hook = await receiver();
    // "paylink-test.invalid" cannot resolve in any real DNS: the request can only arrive if the
    // connection used the address the guard vetted.
    const result = await sendWebhook(`http://paylink-test.invalid:${hook.port}/x`, request(), {
      allowPrivate: false,
      vet: async (hostname) => {
        assert.equal(hostname, "paylink-test.invalid");
        return { address: "127.0.0.1", family: 4 };
      },
    });
    assert.equal(result.delivered, true, result.error ?? "");
    assert.equal(hook.requests[0]!.headers.host, `paylink-test.invalid:${hook.port}`);
  });

  test("attempts to one receiver reuse a kept-alive connection, one pool per vetted address", async () => {
    // The address each connection was made to, as the receiver saw it.
    const connectedTo: string[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.end("ok"));
    });
    server.on("connection", (socket) => connectedTo.push((socket.localAddress ?? "").replace(/^::ffff:/, "")));
    await new Promise<void>((resolve) => server.listen(0, resolve));
    const port = (server.address() as AddressInfo).port;
    const sendVia = async (address: string) => {
      const result = await sendWebhook(`http://paylink-test.invalid:${port}/x`, request(), {
        allowPrivate: false,
        vet: async () => ({ address, family: 4 }),
      });
      assert.equal(result.delivered, true, result.error ?? "");
    };
    try {
      for (let i = 0; i < 3; i++) await sendVia("127.0.0.1");
      assert.deepEqual(connectedTo, ["127.0.0.1"]);
      // The same name vetted to another address never rides the first address's socket.
      await sendVia("127.0.0.2");
      await sendVia("127.0.0.2");
      await sendVia("127.0.0.1");
      assert.deepEqual(connectedTo, ["127.0.0.1", "127.0.0.2"]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test("the timeout covers the DNS lookup of the guard and a receiver that never answers", async () => {
    const stuckDns = await sendWebhook("https://slow-dns.example/", request(), {
      allowPrivate: false,
      timeoutMs: 200,
      resolver: () => new Promise(() => {}),
    });
    assert.equal(stuckDns.error, "timed out after 0.2 s");
    assert.ok(stuckDns.latencyMs >= 190 && stuckDns.latencyMs < 1000);
    const silent = await receiver(() => ({ status: 200, delayMs: 3000 }));
    const started = Date.now();
    const result = await sendWebhook(silent.url, request(), { allowPrivate: true, timeoutMs: 300 });
    assert.equal(result.delivered, false);
    assert.equal(result.error, "timed out after 0.3 s");
    assert.ok(Date.now() - started < 1500);
    // Shutdown is not a timeout: the attempt says nothing about the receiver.
    const shutdown = new AbortController();
    const arrived = silent.requests.length + 1;
    const sending = sendWebhook(silent.url, request(), { allowPrivate: true, signal: shutdown.signal });
    await silent.waitFor(arrived);
    shutdown.abort();
    const aborted = await sending;
    assert.equal(aborted.aborted, true);
  });

  test("a connection that never completes fails at the connect time-out, well before the answer's", async () => {
    const blackhole = await startUnacceptingPort();
    try {
      const result = await sendWebhook(`http://127.0.0.1:${blackhole.port}/x`, request(), {
        allowPrivate: true,
        timeoutMs: 5000,
        connectTimeoutMs: 200,
      });
      assert.equal(result.delivered, false);
      assert.equal(result.error, "could not connect within 0.2 s");
      assert.equal(result.unreachable, true, "counts against the endpoint's breaker");
      assert.ok(result.latencyMs >= 190 && result.latencyMs < 2000, `latency ${result.latencyMs}`);
    } finally {
      await blackhole.close();
    }
    // A receiver that connects at once but answers slowly is not cut short by the connect time-out.
    const slow = await receiver(() => ({ status: 200, delayMs: 400 }));
    const answered = await sendWebhook(slow.url, request(), { allowPrivate: true, timeoutMs: 3000, connectTimeoutMs: 100 });
    assert.equal(answered.delivered, true, answered.error ?? "");
  });

  test("only 2xx is delivered; redirects are not followed; the first 1 KB of the answer is kept", async () => {
    const target = await receiver();
    const statuses = [200, 201, 204, 299, 301, 302, 307, 400, 404, 500];
    for (const status of statuses) {
      const hook = await receiver(() => ({
        status,
        headers: (status >= 300 && status < 400 ? { location: target.url } : {}) as Record<string, string>,
        body: status === 204 ? "" : "x".repeat(3000),
      }));
      const result = await sendWebhook(hook.url, request(), { allowPrivate: true });
      assert.equal(result.delivered, status < 300, String(status));
      assert.equal(result.statusCode, status);
      assert.equal(result.responseExcerpt, status === 204 ? null : "x".repeat(1024));
    }
    assert.equal(target.requests.length, 0, "no redirect was followed");
  });

  test("Retry-After is read on 429 and 503 only, as seconds or a date", async () => {
    const seconds = await receiver(() => ({ status: 429, headers: { "retry-after": "120" } }));
    assert.equal((await sendWebhook(seconds.url, request(), { allowPrivate: true })).retryAfterMs, 120_000);
    const date = await receiver(() => ({ status: 503, headers: { "retry-after": new Date(Date.now() + 60_000).toUTCString() } }));
    const fromDate = (await sendWebhook(date.url, request(), { allowPrivate: true })).retryAfterMs!;
    assert.ok(fromDate > 55_000 && fromDate <= 60_000, String(fromDate));
    const ignored = await receiver(() => ({ status: 500, headers: { "retry-after": "120" } }));
    assert.equal((await sendWebhook(ignored.url, request(), { allowPrivate: true })).retryAfterMs, undefined);
  });

  test("an answer with NUL bytes or broken UTF-8 is stored as text", async () => {
    const hook = await receiver(() => ({ status: 500, body: "a\u0000b\u00e9" }));
    const result = await sendWebhook(hook.url, request(), { allowPrivate: true });
    assert.equal(result.responseExcerpt, "ab\u00e9");
  });
});
