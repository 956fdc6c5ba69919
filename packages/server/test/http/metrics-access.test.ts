// Issue #12 finding 7: /metrics is not public. With PAYLINK_METRICS_TOKEN it asks for that bearer
// token; without it only a client on this machine whose request no proxy forwarded may read it (a
// reverse proxy on the same host connects from loopback too). PAYLINK_TRUST_PROXY=true is warned
// about at start. Real server, real HTTP.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { loadConfig, startupWarnings } from "../../src/config.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";

const TOKEN = "metrics-token-0123456789abcdef";

describe("/metrics with PAYLINK_METRICS_TOKEN", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ metricsToken: TOKEN });
  });
  after(() => server.close());

  test("no token or a wrong one: 401 3001 with WWW-Authenticate, and no metrics in the body", async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: "Bearer wrong-token-0123456789" }, { authorization: TOKEN }];
    for (const headers of attempts) {
      const response = await fetch(`${server.baseUrl}/metrics`, { headers });
      assert.equal(response.status, 401);
      assert.equal(response.headers.get("www-authenticate"), 'Bearer realm="metrics"');
      const text = await response.text();
      assert.equal(JSON.parse(text).errorCode, "3001");
      assert.doesNotMatch(text, /paylink_/);
    }
  });

  test("the right token: the metrics, from any address (behind a proxy too)", async () => {
    const response = await fetch(`${server.baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}`, "x-forwarded-for": "203.0.113.9" },
    });
    assert.equal(response.status, 200);
    assert.match(await response.text(), /^paylink_uptime_seconds \d+$/m);
  });
});

describe("/metrics without a token", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ trustProxy: true });
  });
  after(() => server.close());

  test("a local client reads it", async () => {
    assert.equal((await fetch(`${server.baseUrl}/metrics`)).status, 200);
  });

  test("a request a proxy forwarded gets the 404 of an unknown path, even claiming to come from 127.0.0.1", async () => {
    const forwarded: Record<string, string>[] = [
      { "x-forwarded-for": "203.0.113.9" },
      { "x-forwarded-for": "127.0.0.1" },
      { forwarded: "for=127.0.0.1" },
      { "x-real-ip": "127.0.0.1" },
    ];
    for (const headers of forwarded) {
      const response = await fetch(`${server.baseUrl}/metrics`, { headers });
      assert.equal(response.status, 404, JSON.stringify(headers));
      const text = await response.text();
      assert.equal(JSON.parse(text).errorCode, "2014");
      assert.doesNotMatch(text, /paylink_/);
    }
  });
});

test("PAYLINK_TRUST_PROXY=true is warned about at start; hop counts and addresses are not", () => {
  const [warning, ...more] = startupWarnings(loadConfig({ PAYLINK_TRUST_PROXY: "true" }));
  assert.equal(more.length, 0);
  assert.match(warning ?? "", /X-Forwarded-For, which any client can write/);
  assert.match(warning ?? "", /number of proxy hops/);
  for (const safe of ["1", "2", "10.0.0.0/8,192.168.1.4", "false"])
    assert.deepEqual(startupWarnings(loadConfig({ PAYLINK_TRUST_PROXY: safe })), []);
});

test("PAYLINK_METRICS_TOKEN: at least 16 characters", () => {
  assert.equal(loadConfig({ PAYLINK_METRICS_TOKEN: TOKEN }).metricsToken, TOKEN);
  assert.equal(loadConfig({}).metricsToken, undefined);
  assert.throws(() => loadConfig({ PAYLINK_METRICS_TOKEN: "short" }), /PAYLINK_METRICS_TOKEN must be at least 16 characters/);
});
