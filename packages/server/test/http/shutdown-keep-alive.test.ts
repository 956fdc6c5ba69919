// Shutting down while a request runs on a keep-alive connection: the request finishes (200), and the
// close does not then wait out the connection's keep-alive time (Fastify's 72 s) because the
// connection was busy when the close began (http/shutdown.ts). Before, a processor's notification
// still being handled when a test server closed held that close for 70 seconds.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../support/harness.ts";

describe("closing with a request in flight on a keep-alive connection", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.close());

  it("the request is answered and the close ends within seconds", async () => {
    const body = JSON.stringify({ type: "TokenizeByLink", terminalIdentifier: server.terminalIdentifier, amount: 0, currency: "ISK" });
    const socket = connect(Number(new URL(server.baseUrl).port), "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk));
    const closed = new Promise((resolve) => socket.once("close", resolve));
    // Headers and half the body now (the request is running), the rest once the close has begun.
    socket.write(
      `POST /api/v1/paymentlinks/create HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${server.apiKey}\r\n` +
        `content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const startedAt = Date.now();
    const closing = server.app.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.write(body.slice(10));
    await closing;
    const seconds = (Date.now() - startedAt) / 1000;
    await closed;
    assert.match(answer, /^HTTP\/1\.1 200 /, answer);
    assert.ok(seconds < 5, `the close took ${seconds.toFixed(1)} s`);
  });
});
