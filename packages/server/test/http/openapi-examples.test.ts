// The worked examples of the API reference are true: each example request, sent to a real server,
// gets the answer its example shows (the same fields, the same values where the server does not
// choose them, the same error code and message), and each example fits its documented schema.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sql } from "kysely";
import { Compile } from "typebox/compile";
import { ERROR_EXAMPLES, PAY_BY_LINK, TOKENIZE_BY_LINK } from "../../src/api/openapi-examples.ts";
import { testBackends } from "../support/databases.ts";
import { assertError, assertOk, getLink, setSalesCount } from "../support/fixtures.ts";
import { assertSameShape, documentedServer, JSON_TYPE } from "../support/openapi-examples.ts";
import { createLink } from "../support/shopper.ts";

for (const backend of testBackends()) {
  describe(`the API reference's examples are true (${backend.name})`, () => {
    const served = documentedServer(backend);
    const { example, request } = served;
    const mine = <T extends Record<string, unknown>>(body: T) => ({ ...body, terminalIdentifier: served.server.terminalIdentifier });

    it("every example fits the schema it illustrates", () => {
      let checked = 0;
      for (const [path, operations] of Object.entries<any>(served.doc.paths)) {
        for (const [method, op] of Object.entries<any>(operations)) {
          const media = [op.requestBody?.content?.[JSON_TYPE], ...Object.values<any>(op.responses).map((r) => r.content?.[JSON_TYPE])];
          for (const { schema, examples } of media.filter((m) => m?.examples)) {
            const check = Compile(schema);
            for (const [name, { value }] of Object.entries<any>(examples)) {
              assert.ok(check.Check(value), `${method} ${path} ${name}: ${JSON.stringify([...check.Errors(value)].slice(0, 3))}`);
              checked++;
            }
          }
          for (const parameter of op.parameters ?? [])
            if (parameter.example !== undefined) assert.ok(Compile(parameter.schema).Check(parameter.example), `${path} ${parameter.name}`);
        }
      }
      assert.ok(checked >= 15, `${checked} examples checked`);
    });

    it("create: the PayByLink and TokenizeByLink examples create links, answered as the example shows", async () => {
      const { server } = served;
      assert.deepEqual(request("post", "/paymentlinks/create", "payByLink"), PAY_BY_LINK);
      assert.deepEqual(request("post", "/paymentlinks/create", "tokenizeByLink"), TOKENIZE_BY_LINK);
      for (const body of [PAY_BY_LINK, TOKENIZE_BY_LINK]) {
        const response = await server.api("POST", "/api/v1/paymentlinks/create", mine(body));
        assertOk(response);
        assertSameShape(example("post", "/paymentlinks/create", 200, "created"), response.body);
      }
    });

    it("get and list: a link made from the PayByLink example, sold once, reads as the examples show", async () => {
      const { server } = served;
      const reference = await createLink(server, mine(PAY_BY_LINK));
      await setSalesCount(server, reference, 1);
      await sql`UPDATE payment_links SET visit_count = 2 WHERE reference = ${reference}`.execute(server.db);
      const response = await server.api("GET", `/api/v1/paymentlinks/${reference}`);
      assertOk(response);
      const shown = example("get", "/paymentlinks/{reference}", 200, "paid");
      assertSameShape(shown, response.body);
      const chosenByServer = ["paymentLinkReference", "url", "createdAt", "terminalIdentifier", "submissions"];
      for (const [field, value] of Object.entries(shown.paymentLink))
        if (!chosenByServer.includes(field)) assert.deepEqual(response.body.paymentLink[field], value, `paymentLink.${field}`);

      const listed = await server.api("GET", `/api/v1/paymentlinks?page=0&pageSize=20&type=PayByLink&search=${reference}`);
      assertOk(listed);
      assertSameShape(example("get", "/paymentlinks", 200, "page"), listed.body);
    });

    it("update: the example (the GET object sent back, changed) is accepted; a price change after a sale is the 409 shown", async () => {
      const { server } = served;
      const reference = await createLink(server, mine(PAY_BY_LINK));
      await setSalesCount(server, reference, 1);
      const extend = { ...mine(request("post", "/paymentlinks/update", "extend")), paymentLinkReference: reference };
      const response = await server.api("POST", "/api/v1/paymentlinks/update", extend);
      assertOk(response);
      assertSameShape(example("post", "/paymentlinks/update", 200, "done"), response.body);
      const link = await getLink(server, reference);
      assert.equal(link.maxSalesCount, 5);
      assert.equal(link.status, "Active", "a higher limit re-opens the sold link");

      const conflict = await server.api("POST", "/api/v1/paymentlinks/update", { ...extend, amount: 1390000, items: [] });
      assertError(conflict, 409, ERROR_EXAMPLES.soldPrice.errorCode);
      assert.equal(conflict.body.errorMessage, example("post", "/paymentlinks/update", 409, "soldPrice").errorMessage);
    });

    it("disable: the example's body disables a link", async () => {
      const { server } = served;
      const reference = await createLink(server, mine(PAY_BY_LINK));
      const response = await server.api("POST", "/api/v1/paymentlinks/disable", {
        ...request("post", "/paymentlinks/disable", "disable"),
        paymentLinkReference: reference,
      });
      assertOk(response);
      assert.equal((await getLink(server, reference)).status, "Disabled");
    });

    it("the error examples are the errors the server gives, message for message", async () => {
      const { server } = served;
      const cases: Array<[number, string, string, () => Promise<any>]> = [
        [
          401,
          "post /paymentlinks/create",
          "unauthenticated",
          () => server.api("POST", "/api/v1/paymentlinks/create", mine(PAY_BY_LINK), { "x-api-key": `plk_${"0".repeat(32)}` }),
        ],
        [
          400,
          "post /paymentlinks/create",
          "iskNotWhole",
          () => server.api("POST", "/api/v1/paymentlinks/create", mine({ ...PAY_BY_LINK, amount: 1290050, items: [] })),
        ],
        [
          404,
          "get /paymentlinks/{reference}",
          "notFound",
          () => server.api("GET", `/api/v1/paymentlinks/${request("post", "/paymentlinks/disable", "disable").paymentLinkReference}`),
        ],
        [
          404,
          "post /paymentlinks/disable",
          "notFound",
          () => server.api("POST", "/api/v1/paymentlinks/disable", request("post", "/paymentlinks/disable", "disable")),
        ],
        [400, "get /paymentlinks", "unknownStatus", () => server.api("GET", "/api/v1/paymentlinks?status=Open")],
        [
          422,
          "post /paymentlinks/create",
          "keyReused",
          async () => {
            const headers = { "idempotency-key": `docs-example-${backend.name}` };
            assertOk(await server.api("POST", "/api/v1/paymentlinks/create", mine(PAY_BY_LINK), headers));
            return server.api("POST", "/api/v1/paymentlinks/create", mine(TOKENIZE_BY_LINK), headers);
          },
        ],
      ];
      for (const [status, where, name, send] of cases) {
        const [method, path] = where.split(" ") as [string, string];
        const shown = example(method, path, status, name);
        const response = await send();
        assertError(response, status, shown.errorCode);
        assert.equal(response.body.errorMessage, shown.errorMessage, `${where} ${name}`);
        assertSameShape(shown, response.body);
      }
    });
  });
}
