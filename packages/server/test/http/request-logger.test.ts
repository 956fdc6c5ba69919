// Request logging with the lazy per-request logger (http/request-logger.ts): the lines a request
// writes carry its id and are redacted as before; at a level that writes nothing, nothing is made.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import type { FastifyBaseLogger } from "fastify";
import { lazyRequestLogger } from "../../src/http/request-logger.ts";
import { createLogger } from "../../src/logging.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";

function capture(level: string): { logger: FastifyBaseLogger; lines: () => any[] } {
  const written: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      written.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger(level, stream), lines: () => written.map((line) => JSON.parse(line)) };
}

describe("request logs (info level, a real server)", () => {
  let server: TestServer;
  const log = capture("info");

  before(async () => {
    server = await startTestServer({ logger: log.logger });
  });
  after(() => server.close());

  it("each request's lines carry its own id; secrets in headers are redacted", async () => {
    await fetch(`${server.baseUrl}/healthz`);
    const response = await server.api("GET", "/api/v1/paymentlinks?pageSize=1");
    assert.equal(response.status, 200);
    const lines = log.lines().filter((line) => line.reqId);
    const incoming = lines.filter((line) => line.msg === "incoming request");
    const completed = lines.filter((line) => line.msg === "request completed");
    assert.equal(incoming.length, 2);
    assert.equal(completed.length, 2);
    assert.notEqual(incoming[0].reqId, incoming[1].reqId);
    assert.deepEqual(
      completed.map((line) => line.reqId),
      incoming.map((line) => line.reqId),
    );
    assert.equal(incoming[1].req.url, "/api/v1/paymentlinks?pageSize=1");
    assert.ok(!JSON.stringify(lines).includes(server.apiKey), "the API key never reaches a log line");
  });
});

describe("the lazy request logger", () => {
  it("writes nothing and makes no child below the level; above it, one child with the bindings and redaction", () => {
    const log = capture("warn");
    let children = 0;
    const parent = log.logger;
    const counting = new Proxy(parent, {
      get(target, property, receiver) {
        if (property === "child") {
          return (...args: Parameters<FastifyBaseLogger["child"]>) => {
            children += 1;
            return target.child(...args);
          };
        }
        return Reflect.get(target, property, receiver);
      },
    });
    const requestLog = lazyRequestLogger(counting, { reqId: "req-1" }, {});
    requestLog.info("quiet");
    requestLog.debug({ a: 1 }, "quiet too");
    assert.equal(children, 0);
    assert.equal(log.lines().length, 0);
    assert.equal(requestLog.level, "warn");

    requestLog.warn({ cardNumber: "4111111111111111" }, "loud");
    requestLog.error("louder");
    assert.equal(children, 1, "the child is made once, at the first line written");
    const lines = log.lines();
    assert.deepEqual(
      lines.map((line) => [line.reqId, line.msg]),
      [
        ["req-1", "loud"],
        ["req-1", "louder"],
      ],
    );
    assert.equal(lines[0].cardNumber, "[redacted]");
  });
});
