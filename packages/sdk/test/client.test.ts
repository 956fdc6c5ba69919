import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, describe, it } from "node:test";
import {
  type CreatePaymentLinkRequest,
  PaylinkApiError,
  PaylinkClient,
  PaylinkError,
  PaylinkNetworkError,
  PaylinkTimeoutError,
  type PaymentLink,
  type PaymentLinkSummary,
} from "../src/index.js";

// A real HTTP server that records what the client sends and answers with whatever the current
// test scripted, so headers, encoding and timeouts go through node's actual network stack.
interface RecordedRequest {
  method: string;
  /** Path and query exactly as sent on the wire (not decoded). */
  rawUrl: string;
  headers: IncomingHttpHeaders;
  body: string;
}
type Responder = (request: RecordedRequest, response: ServerResponse) => void;

let server: Server;
let origin: string;
let requests: RecordedRequest[] = [];
let respond: Responder = () => {};

before(async () => {
  server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const recorded = {
        method: incoming.method ?? "",
        rawUrl: incoming.url ?? "",
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(recorded);
      respond(recorded, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  requests = [];
  respond = (_request, response) => sendJson(response, 200, envelope({}));
});

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { "Content-Type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

function envelope<T extends object>(body: T) {
  return { ...body, responseDateTime: "2025-01-01T00:00:00.000Z", responseIdentifier: "7d9f3c1e-0000-4000-8000-000000000001" };
}

const API_KEY = "plk_test_0123456789";
const client = () => new PaylinkClient({ baseUrl: origin, apiKey: API_KEY });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const createRequest: CreatePaymentLinkRequest = {
  type: "PayByLink",
  terminalIdentifier: "a1b2c3d4e5f6",
  amount: 48900,
  currency: "ISK",
  items: [{ name: "Lopapeysa", quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 }],
  culture: "en",
};

function sampleLink(reference: string): PaymentLink {
  return {
    paymentLinkReference: reference,
    terminalIdentifier: "a1b2c3d4e5f6",
    type: "PayByLink",
    status: "Active",
    amount: 48900,
    currency: "ISK",
    items: createRequest.items ?? [],
    recurringProcessingModel: null,
    culture: "en",
    themeKey: null,
    description: "Sweater",
    returnUrl: null,
    url: `http://localhost:3000/pay/${reference}`,
    createdAt: "2025-01-01T00:00:00.000Z",
    validUntil: null,
    visitCount: 3,
    salesCount: 1,
    maxSalesCount: null,
    shopperInfo: [{ field: "EmailAddress", requirementType: "Required", prefilledValue: null }],
    submissions: [
      { answers: [{ field: "EmailAddress", value: "a@example.com" }], completed: true, amount: 48900, currency: "ISK", token: null },
    ],
  };
}

describe("requests", () => {
  it("creates a link with the API key, JSON and a fresh Idempotency-Key per call", async () => {
    respond = (_request, response) =>
      sendJson(response, 200, envelope({ paymentLinkReference: "plAbc123XyZ9", url: "http://localhost:3000/pay/plAbc123XyZ9" }));
    const paylink = client();
    const created = await paylink.createPaymentLink(createRequest);
    await paylink.createPaymentLink(createRequest);

    assert.equal(created.paymentLinkReference, "plAbc123XyZ9");
    assert.equal(created.responseIdentifier, "7d9f3c1e-0000-4000-8000-000000000001");
    const [first, second] = requests as [RecordedRequest, RecordedRequest];
    assert.equal(first.method, "POST");
    assert.equal(first.rawUrl, "/api/v1/paymentlinks/create");
    assert.equal(first.headers["x-api-key"], API_KEY);
    assert.equal(first.headers["content-type"], "application/json");
    assert.equal(first.headers.accept, "application/json");
    assert.match(String(first.headers["idempotency-key"]), UUID);
    assert.notEqual(first.headers["idempotency-key"], second.headers["idempotency-key"]);
    assert.deepEqual(JSON.parse(first.body), createRequest);
  });

  it("sends the caller's Idempotency-Key on every POST", async () => {
    const paylink = client();
    await paylink.createPaymentLink(createRequest, { idempotencyKey: "order-1001" });
    await paylink.updatePaymentLink(sampleLink("plAbc123XyZ9"), { idempotencyKey: "order-1001-edit" });
    await paylink.disablePaymentLink("plAbc123XyZ9", { idempotencyKey: "order-1001-cancel" });
    assert.deepEqual(
      requests.map((request) => request.headers["idempotency-key"]),
      ["order-1001", "order-1001-edit", "order-1001-cancel"],
    );
    await assert.rejects(paylink.createPaymentLink(createRequest, { idempotencyKey: "" }), TypeError);
    await assert.rejects(paylink.createPaymentLink(createRequest, { idempotencyKey: "k".repeat(256) }), TypeError);
  });

  it("gets a link, URL-encoding the reference", async () => {
    const reference = "a/b?c d#é%";
    respond = (_request, response) => sendJson(response, 200, envelope({ paymentLink: sampleLink(reference) }));
    const link = await client().getPaymentLink(reference);
    assert.deepEqual(link, sampleLink(reference));
    const [request] = requests as [RecordedRequest];
    assert.equal(request.method, "GET");
    assert.equal(request.rawUrl, "/api/v1/paymentlinks/a%2Fb%3Fc%20d%23%C3%A9%25");
    assert.equal(request.headers["idempotency-key"], undefined);
    assert.equal(request.headers["content-type"], undefined);
    assert.equal(request.headers["x-api-key"], API_KEY);
  });

  it("refuses an empty reference rather than calling the list endpoint", async () => {
    await assert.rejects(client().getPaymentLink(""), TypeError);
    await assert.rejects(client().disablePaymentLink(""), TypeError);
    assert.equal(requests.length, 0);
  });

  it("updates a link as read, without its submissions", async () => {
    const link = sampleLink("plAbc123XyZ9");
    link.description = "Wool sweater";
    const result = await client().updatePaymentLink(link);
    assert.equal(result.responseIdentifier, "7d9f3c1e-0000-4000-8000-000000000001");
    const [request] = requests as [RecordedRequest];
    assert.equal(request.rawUrl, "/api/v1/paymentlinks/update");
    const { submissions: _submissions, ...withoutSubmissions } = link;
    assert.deepEqual(JSON.parse(request.body), withoutSubmissions);
    assert.equal(link.submissions.length, 1, "the caller's object is left untouched");
  });

  it("disables a link by reference", async () => {
    await client().disablePaymentLink("plAbc123XyZ9");
    const [request] = requests as [RecordedRequest];
    assert.equal(request.rawUrl, "/api/v1/paymentlinks/disable");
    assert.deepEqual(JSON.parse(request.body), { paymentLinkReference: "plAbc123XyZ9" });
    assert.match(String(request.headers["idempotency-key"]), UUID);
  });

  it("sends the after-sale calls to their paths, with an Idempotency-Key on every POST", async () => {
    const paylink = client();
    const charge = {
      terminalIdentifier: "a1b2c3d4e5f6",
      amount: 129900,
      currency: "ISK",
      reference: "invoice-7",
      tokenDetails: { tokenValue: "K7N2QX9RT4BW8M3C" },
    };
    await paylink.chargeToken(charge, { idempotencyKey: "invoice-7" });
    await paylink.refund({ payfacReference: "9TX4KD2MQ8RZ6WNB", amount: 100, currency: "ISK", refundReason: "CUSTOMER REQUEST" });
    await paylink.reverse("9TX4KD2MQ8RZ6WNB");
    await paylink.disableToken("K7N2QX9RT4BW8M3C");
    respond = (_request, response) => sendJson(response, 200, envelope({ payment: { payfacReference: "A/B" } }));
    assert.deepEqual(await paylink.getPayment("A/B"), { payfacReference: "A/B" });
    assert.deepEqual(
      requests.map((r) => [r.method, r.rawUrl, r.body === "" ? null : JSON.parse(r.body)]),
      [
        ["POST", "/api/v1/payment", charge],
        [
          "POST",
          "/api/v1/modification/refund",
          { payfacReference: "9TX4KD2MQ8RZ6WNB", amount: 100, currency: "ISK", refundReason: "CUSTOMER REQUEST" },
        ],
        ["POST", "/api/v1/modification/reverse", { payfacReference: "9TX4KD2MQ8RZ6WNB" }],
        ["POST", "/api/v1/tokens/disable", { tokenValue: "K7N2QX9RT4BW8M3C" }],
        ["GET", "/api/v1/payments/A%2FB", null],
      ],
    );
    assert.equal(requests[0]!.headers["idempotency-key"], "invoice-7");
    for (const request of requests.slice(1, 4)) assert.match(String(request.headers["idempotency-key"]), UUID);
  });

  it("refuses an empty payfacReference or token rather than calling another endpoint", async () => {
    await assert.rejects(client().getPayment(""), TypeError);
    await assert.rejects(client().reverse(""), TypeError);
    await assert.rejects(client().refund({ payfacReference: "", amount: 1, currency: "ISK" }), TypeError);
    await assert.rejects(client().disableToken(""), TypeError);
    assert.equal(requests.length, 0);
  });

  it("lists with the query in the URL, dates as ISO 8601", async () => {
    respond = (_request, response) => sendJson(response, 200, envelope({ data: [], totalCount: 0 }));
    await client().listPaymentLinks({
      page: 2,
      pageSize: 50,
      status: "Active",
      type: "PayByLink",
      createdFrom: new Date("2025-01-01T00:00:00Z"),
      createdTo: "2025-02-01T00:00:00Z",
      search: "sweater & hat",
    });
    await client().listPaymentLinks();
    const [filtered, plain] = requests as [RecordedRequest, RecordedRequest];
    const url = new URL(filtered.rawUrl, origin);
    assert.equal(url.pathname, "/api/v1/paymentlinks");
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      page: "2",
      pageSize: "50",
      status: "Active",
      type: "PayByLink",
      createdFrom: "2025-01-01T00:00:00.000Z",
      createdTo: "2025-02-01T00:00:00Z",
      search: "sweater & hat",
    });
    assert.equal(plain.rawUrl, "/api/v1/paymentlinks");
  });

  it("accepts a base URL with a trailing slash or already ending in /api/v1", async () => {
    for (const baseUrl of [`${origin}/`, `${origin}/api/v1`, `${origin}/api/v1/`]) {
      await new PaylinkClient({ baseUrl, apiKey: API_KEY }).disablePaymentLink("x");
    }
    assert.deepEqual(
      requests.map((request) => request.rawUrl),
      Array(3).fill("/api/v1/paymentlinks/disable"),
    );
    // A deployment under a path prefix keeps it.
    await new PaylinkClient({ baseUrl: `${origin}/paylink`, apiKey: API_KEY }).disablePaymentLink("x");
    assert.equal(requests.at(-1)?.rawUrl, "/paylink/api/v1/paymentlinks/disable");
  });

  it("validates its options", () => {
    assert.throws(() => new PaylinkClient({ baseUrl: "localhost:3000", apiKey: API_KEY }), /baseUrl must/);
    assert.throws(() => new PaylinkClient({ baseUrl: "ftp://example.com", apiKey: API_KEY }), /http or https/);
    assert.throws(() => new PaylinkClient({ baseUrl: origin, apiKey: "" }), /apiKey is required/);
    assert.throws(() => new PaylinkClient({ baseUrl: origin, apiKey: API_KEY, timeoutMs: 0 }), /timeoutMs/);
  });
});

describe("pagination", () => {
  it("iterates over every page and stops after the last", async () => {
    const all = Array.from({ length: 5 }, (_, index) => summary(`pl${index}`));
    respond = (request, response) => {
      const query = new URL(request.rawUrl, origin).searchParams;
      const page = Number(query.get("page"));
      const pageSize = Number(query.get("pageSize"));
      sendJson(response, 200, envelope({ data: all.slice(page * pageSize, (page + 1) * pageSize), totalCount: all.length }));
    };
    const seen: string[] = [];
    for await (const link of client().iteratePaymentLinks({ pageSize: 2, status: "Active" })) seen.push(link.paymentLinkReference);

    assert.deepEqual(seen, ["pl0", "pl1", "pl2", "pl3", "pl4"]);
    assert.deepEqual(
      requests.map((request) => Object.fromEntries(new URL(request.rawUrl, origin).searchParams)),
      [0, 1, 2].map((page) => ({ status: "Active", page: String(page), pageSize: "2" })),
    );
  });

  it("skips links pushed onto the next page by new ones, and stops on a full last page", async () => {
    // A link created between the two requests shifts pl1 from page 0 to page 1.
    const pages = [
      { data: [summary("pl0"), summary("pl1")], totalCount: 4 },
      { data: [summary("pl1"), summary("pl2")], totalCount: 4 },
    ];
    respond = (request, response) => {
      const page = Number(new URL(request.rawUrl, origin).searchParams.get("page"));
      sendJson(response, 200, envelope(pages[page] ?? { data: [], totalCount: 4 }));
    };
    const seen: string[] = [];
    for await (const link of client().iteratePaymentLinks({ pageSize: 2 })) seen.push(link.paymentLinkReference);
    assert.deepEqual(seen, ["pl0", "pl1", "pl2"]);
    assert.equal(requests.length, 2);
  });

  it("asks for 100 links per page by default, and makes one request for an empty list", async () => {
    respond = (_request, response) => sendJson(response, 200, envelope({ data: [], totalCount: 0 }));
    for await (const _link of client().iteratePaymentLinks()) assert.fail("no links expected");
    assert.deepEqual(
      requests.map((request) => request.rawUrl),
      ["/api/v1/paymentlinks?page=0&pageSize=100"],
    );
  });

  function summary(reference: string): PaymentLinkSummary {
    const {
      paymentLinkReference,
      description,
      amount,
      currency,
      type,
      status,
      url,
      createdAt,
      validUntil,
      visitCount,
      salesCount,
      maxSalesCount,
    } = sampleLink(reference);
    return {
      paymentLinkReference,
      description,
      amount,
      currency,
      type,
      status,
      url,
      createdAt,
      validUntil,
      visitCount,
      salesCount,
      maxSalesCount,
    };
  }
});

describe("errors", () => {
  it("throws a typed PaylinkApiError from an error body", async () => {
    const errorBody = {
      errorCode: "2026",
      errorMessage: "amount 150 is not valid for ISK: it must end in 00",
      responseIdentifier: "0b3e2a5c-1111-4222-8333-444455556666",
      responseDateTime: "2025-01-01T00:00:00.000Z",
    };
    respond = (_request, response) => sendJson(response, 400, errorBody);
    const error = await client()
      .createPaymentLink({ ...createRequest, amount: 150 })
      .catch((caught: unknown) => caught);

    assert.ok(error instanceof PaylinkApiError);
    assert.ok(error instanceof PaylinkError);
    assert.equal(error.name, "PaylinkApiError");
    assert.equal(error.status, 400);
    assert.equal(error.errorCode, "2026");
    assert.equal(error.errorMessage, errorBody.errorMessage);
    assert.equal(error.responseIdentifier, errorBody.responseIdentifier);
    assert.equal(error.responseDateTime, errorBody.responseDateTime);
    assert.equal(error.method, "POST");
    assert.match(error.message, /POST .*\/paymentlinks\/create failed with HTTP 400, error 2026: amount 150/);
    assert.ok(!error.message.includes(API_KEY));
  });

  it("reports 404 and 401 with their codes", async () => {
    respond = (request, response) =>
      request.headers["x-api-key"] === API_KEY
        ? sendJson(response, 404, { errorCode: "2014", errorMessage: "payment link nope was not found" })
        : sendJson(response, 401, { errorCode: "3001", errorMessage: "missing or unknown API key" });
    await assert.rejects(client().getPaymentLink("nope"), { name: "PaylinkApiError", status: 404, errorCode: "2014" });
    const unauthenticated = new PaylinkClient({ baseUrl: origin, apiKey: "plk_wrong" });
    await assert.rejects(unauthenticated.getPaymentLink("nope"), { status: 401, errorCode: "3001" });
  });

  it("reads Retry-After of a rate-limited response", async () => {
    respond = (_request, response) => sendJson(response, 429, { errorCode: "3002", errorMessage: "slow down" }, { "Retry-After": "7" });
    await assert.rejects(client().listPaymentLinks(), { status: 429, errorCode: "3002", retryAfterSeconds: 7 });
  });

  it("describes an error that is not a Paylink error body", async () => {
    respond = (_request, response) => {
      response.writeHead(502, { "Content-Type": "text/html" });
      response.end("<html>Bad gateway</html>");
    };
    const error = await client()
      .listPaymentLinks()
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof PaylinkApiError);
    assert.equal(error.status, 502);
    assert.equal(error.errorCode, undefined);
    assert.match(error.message, /HTTP 502, unexpected response body: <html>Bad gateway/);
  });

  it("does not follow redirects, which would carry the API key elsewhere", async () => {
    respond = (_request, response) => {
      response.writeHead(301, { Location: "https://elsewhere.example/api/v1/paymentlinks" });
      response.end();
    };
    await assert.rejects(client().listPaymentLinks(), { status: 301, message: /redirected to https:\/\/elsewhere\.example/ });
    assert.equal(requests.length, 1);
  });

  it("reports a success body that is not JSON", async () => {
    respond = (_request, response) => {
      response.writeHead(200, { "Content-Type": "text/plain" });
      response.end("ok");
    };
    await assert.rejects(client().listPaymentLinks(), { name: "PaylinkApiError", status: 200, message: /not JSON/ });
  });

  it("times out with PaylinkTimeoutError", async () => {
    respond = () => {}; // never answers
    const slowClient = new PaylinkClient({ baseUrl: origin, apiKey: API_KEY, timeoutMs: 150 });
    const started = Date.now();
    const error = await slowClient.getPaymentLink("plAbc123XyZ9").catch((caught: unknown) => caught);
    assert.ok(error instanceof PaylinkTimeoutError);
    assert.ok(error instanceof PaylinkNetworkError);
    assert.equal(error.timeoutMs, 150);
    assert.match(error.message, /GET .*\/paymentlinks\/plAbc123XyZ9 timed out after 150 ms/);
    assert.ok(Date.now() - started < 2000);
  });

  it("times out while the body is still arriving", async () => {
    respond = (_request, response) => {
      response.writeHead(200, { "Content-Type": "application/json" });
      response.write('{"data": ['); // and never finishes
    };
    const slowClient = new PaylinkClient({ baseUrl: origin, apiKey: API_KEY, timeoutMs: 150 });
    await assert.rejects(slowClient.listPaymentLinks(), PaylinkTimeoutError);
  });

  it("reports a refused connection as PaylinkNetworkError with the cause", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));

    const error = await new PaylinkClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: API_KEY })
      .listPaymentLinks()
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof PaylinkNetworkError);
    assert.ok(!(error instanceof PaylinkTimeoutError));
    assert.match(error.message, /GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/paymentlinks failed: .*ECONNREFUSED/);
    assert.ok(error.cause !== undefined);
  });
});
