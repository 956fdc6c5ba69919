// "A URL that names nothing gets a clear 4xx, never a 500", proved with at least 200 generated
// junk paths under /pay/ and under /api/v1/paymentlinks/ each, on every backend: dots,
// percent-encoded garbage, raw UTF-8 and non-UTF-8 bytes, control characters, over-long
// segments (test/support/fuzz-paths.ts; FUZZ_SEED explores others, FUZZ_PATH_CASES sends more).
// Each request line is written byte for byte on a raw socket: fetch and node:http would normalise
// or refuse it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../support/databases.ts";
import { assertErrorShape, simplePayByLink } from "../support/fixtures.ts";
import { IN_FLIGHT, inPool, newOutcome, type Outcome, Random, report, tally, utf8 } from "../support/fuzz.ts";
import { generatePathCases, type PathCase } from "../support/fuzz-paths.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { type Reply, sendRaw } from "../support/raw-http.ts";
import { createLink } from "../support/shopper.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_611);
const PATH_CASES = Math.max(200, Number(process.env.FUZZ_PATH_CASES ?? 200));

async function runPathCases(server: TestServer, cases: PathCase[], kind: "pay" | "api"): Promise<Outcome & { parserRefusals: number }> {
  const outcome = { ...newOutcome(), parserRefusals: 0 };
  const port = new URL(server.baseUrl).port;
  await inPool(cases, IN_FLIGHT, async (c, index) => {
    const headers = [`Host: 127.0.0.1:${port}`, "Connection: close"];
    if (kind === "api") headers.push(`X-API-key: ${server.apiKey}`);
    let body = Buffer.alloc(0);
    if (c.method === "POST" || c.method === "PUT" || c.method === "PATCH") {
      body = kind === "pay" ? utf8("csrfToken=x&cardNumber=4111111111111111&cardExpiry=08%2F40&cardCvc=737") : utf8("{}");
      headers.push(
        `Content-Type: ${kind === "pay" ? "application/x-www-form-urlencoded" : "application/json"}`,
        `Content-Length: ${body.length}`,
      );
    }
    const head = Buffer.from(`${c.method} ${c.path} HTTP/1.1\r\n${headers.join("\r\n")}\r\n\r\n`, "latin1");
    let response: Reply;
    try {
      response = await sendRaw(server.baseUrl, Buffer.concat([head, body]));
    } catch (error) {
      outcome.failures.push(`#${index} ${c.label}: request failed: ${String(error)} — ${c.method} ${JSON.stringify(c.path.slice(0, 150))}`);
      return;
    }
    outcome.sent++;
    // Refused by Node's HTTP parser (a request line with a space, NUL, …), before any route runs:
    // still the documented envelope (http/client-errors.ts), for the checkout's paths too.
    const parserRefusal =
      typeof response.body === "object" && response.body !== null && /not valid HTTP/.test(String((response.body as any).errorMessage));
    if (parserRefusal) outcome.parserRefusals++;
    const code =
      kind === "api" && typeof response.body === "object" && response.body !== null
        ? ` ${(response.body as any).errorCode ?? "(parser)"}`
        : "";
    tally(outcome, `${response.status}${code}`);
    try {
      assert.ok(response.status >= 400 && response.status < 500, `status ${response.status} is not 4xx`);
      if (parserRefusal) assertErrorShape(response);
      else if (c.method !== "HEAD") {
        if (kind === "pay")
          assert.match(response.headers.get("content-type") ?? "", /^text\/html/, "the checkout answers with an HTML page");
        else assertErrorShape(response);
      }
    } catch (error) {
      outcome.failures.push(
        `#${index} ${c.label}: ${(error as Error).message.split("\n")[0]} — got ${response.status} ${response.text.slice(0, 160)} — ${c.method} ${JSON.stringify(c.path.slice(0, 150))}`,
      );
    }
  });
  return outcome;
}

for (const backend of testBackends()) {
  describe(`generated junk paths never get a 5xx (${backend.name})`, () => {
    let server: TestServer;
    let reference: string;

    before(async () => {
      server = await startTestServer({ backend });
      reference = await createLink(server, simplePayByLink(server));
    });
    after(() => server?.close());

    it(`${PATH_CASES} junk paths under /pay/ (GET, HEAD, POST, …): 4xx HTML pages, never a 5xx`, async (t) => {
      const outcome = await runPathCases(server, generatePathCases(new Random(SEED + 400), "/pay/", PATH_CASES), "pay");
      t.diagnostic(`${outcome.parserRefusals} refused by the HTTP parser`);
      report(outcome, SEED, PATH_CASES, t);
    });

    it(`${PATH_CASES} junk paths under /api/v1/paymentlinks/ (GET, HEAD, POST, …): 4xx in the error envelope, never a 5xx`, async (t) => {
      const outcome = await runPathCases(server, generatePathCases(new Random(SEED + 500), "/api/v1/paymentlinks/", PATH_CASES), "api");
      t.diagnostic(`${outcome.parserRefusals} refused by the HTTP parser`);
      report(outcome, SEED, PATH_CASES, t);
    });

    it("the server still works normally afterwards", async () => {
      assert.equal((await fetch(`${server.baseUrl}/readyz`)).status, 200);
      const list = await server.api("GET", "/api/v1/paymentlinks?pageSize=100");
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.data.map((e: any) => e.paymentLinkReference),
        [reference],
      );
    });
  });
}
