// What integrations written for Straumur's payment-links API send, as its .NET service accepts it:
// the `shopperInfos` alias, property names in any letter case at every depth, query parameter
// names in any letter case with unknown ones ignored, and lower-case currency codes. Real HTTP on
// every test backend; each dialect must give exactly the link the documented spelling gives.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../support/databases.ts";
import { type ApiResponse, startTestServer, type TestServer } from "../support/harness.ts";

const CREATE = "/api/v1/paymentlinks/create";
const UPDATE = "/api/v1/paymentlinks/update";
const LIST = "/api/v1/paymentlinks";
/** Differ from link to link whatever was sent. */
const PER_LINK = ["paymentLinkReference", "url", "createdAt"];

const inThirtyDays = () => new Date(Date.now() + 30 * 86_400_000).toISOString();

/** A create body using every kind of field: scalars, an alias pair, a cart and shopper fields. */
function documentedBody(terminalIdentifier: string, themeKey: string, expiresAt: string): Record<string, unknown> {
  return {
    type: "PayByLink",
    terminalIdentifier,
    amount: 48900,
    currency: "ISK",
    items: [
      { name: "Lopapeysa", quantity: 1, unitPrice: 39900, amountWithoutDiscount: 39900, amount: 39900 },
      { name: "Húfa", quantity: 2, unitPrice: 5000, amountWithoutDiscount: 10000, amount: 9000 },
    ],
    culture: "en",
    themeKey,
    expiresAt,
    description: "Winter sale",
    returnUrl: "https://shop.example/thanks",
    exactSalesCount: 3,
    recurringProcessingModel: "CardOnFile",
    shopperInfo: [
      { field: "EmailAddress", requirementType: "Required" },
      { field: "Ssn", requirementType: "Prefilled", prefilledValue: "010130-3019" },
      { field: "Comments", requirementType: "Optional", prefilledValue: null },
    ],
  };
}

/** The same JSON with every property name, at every depth, spelled by `spell`. */
function respell(value: unknown, spell: (name: string) => string): unknown {
  if (Array.isArray(value)) return value.map((entry) => respell(entry, spell));
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([name, child]) => [spell(name), respell(child, spell)]));
}
const pascal = (name: string) => name[0]!.toUpperCase() + name.slice(1);
const upper = (name: string) => name.toUpperCase();

function renamed(body: Record<string, unknown>, from: string, to: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).map(([name, value]) => [name === from ? to : name, value]));
}

/** mulberry32: a small seeded generator, so a failing case can be run again. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function randomCase(random: () => number, name: string): string {
  return [...name].map((char) => (random() < 0.5 ? char.toLowerCase() : char.toUpperCase())).join("");
}

/** The key of `object` that is `name` in some letter case. */
function findName(object: Record<string, unknown>, name: string): string {
  return Object.keys(object).find((key) => key.toLowerCase() === name.toLowerCase())!;
}

function withoutPerLink(link: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(link).filter(([name]) => !PER_LINK.includes(name)));
}

function expectOk(response: ApiResponse): any {
  assert.equal(response.status, 200, `expected 200, got ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

function expectError(response: ApiResponse, status: number, code: string, ...messageIncludes: string[]): void {
  assert.equal(`${response.status} ${response.body?.errorCode}`, `${status} ${code}`, JSON.stringify(response.body));
  for (const text of messageIncludes) {
    assert.ok(response.body.errorMessage.includes(text), `"${response.body.errorMessage}" names ${text}`);
  }
}

for (const backend of testBackends()) {
  describe(`dialects of Straumur's clients (${backend.name})`, () => {
    let server: TestServer;
    let body: Record<string, unknown>;
    /** The link the documented spelling gives, as read back. */
    let documented: Record<string, unknown>;

    before(async () => {
      server = await startTestServer({ backend });
      body = documentedBody(server.terminalIdentifier, server.themeKey, inThirtyDays());
      documented = await createAndRead(body);
    });
    after(() => server?.close());

    const create = (sent: unknown, headers?: Record<string, string>) => server.api("POST", CREATE, sent, headers);
    const read = async (reference: string) => expectOk(await server.api("GET", `${LIST}/${reference}`)).paymentLink;
    async function createAndRead(sent: unknown): Promise<Record<string, unknown>> {
      return read(expectOk(await create(sent)).paymentLinkReference);
    }
    const linkCount = async () => expectOk(await server.api("GET", `${LIST}?pageSize=1`)).totalCount as number;

    describe("the documented spelling", () => {
      it("reads back every field it was sent, camelCase", () => {
        assert.equal(documented.currency, "ISK");
        assert.equal(documented.maxSalesCount, 3);
        assert.equal((documented.shopperInfo as unknown[]).length, 3);
        assert.equal((documented.items as unknown[]).length, 2);
        for (const name of Object.keys(documented)) assert.match(name, /^[a-z][A-Za-z]*$/);
      });
    });

    describe("shopperInfos", () => {
      it("is another name for shopperInfo on create", async () => {
        const link = await createAndRead(renamed(body, "shopperInfo", "shopperInfos"));
        assert.deepEqual(withoutPerLink(link), withoutPerLink(documented));
      });

      it("with shopperInfo in the same request is 2013, and nothing is created", async () => {
        const before = await linkCount();
        const entries = body.shopperInfo;
        expectError(await create({ ...body, shopperInfos: entries }), 400, "2013", "shopperInfo", "shopperInfos");
        // A case variant of one and the alias are still two names for one setting.
        expectError(await create({ ...renamed(body, "shopperInfo", "ShopperInfo"), SHOPPERINFOS: entries }), 400, "2013");
        assert.equal(await linkCount(), before);
      });

      it("names itself in its entries' errors", async () => {
        const entries = [{ field: "FullName", requirementType: "Prefilled" }];
        expectError(
          await create({ ...renamed(body, "shopperInfo", "shopperInfos"), shopperInfos: entries }),
          400,
          "000",
          "shopperInfos[0]",
        );
      });

      it("is another name for shopperInfo on update; both at once is 2013", async () => {
        const reference = expectOk(await create(body)).paymentLinkReference;
        const entries = [{ field: "City", requirementType: "Required" }];
        expectOk(await server.api("POST", UPDATE, { paymentLinkReference: reference, shopperInfos: entries }));
        assert.deepEqual((await read(reference)).shopperInfo, [{ field: "City", requirementType: "Required", prefilledValue: null }]);
        expectError(
          await server.api("POST", UPDATE, { paymentLinkReference: reference, shopperInfo: entries, shopperInfos: entries }),
          400,
          "2013",
        );
      });
    });

    describe("property names in any letter case", () => {
      for (const [name, spell] of [
        ["PascalCase", pascal],
        ["UPPER CASE", upper],
      ] as const) {
        it(`${name}, top level and nested, gives the same link`, async () => {
          const sent = respell(body, spell) as Record<string, unknown>;
          assert.ok("TerminalIdentifier" in sent || "TERMINALIDENTIFIER" in sent);
          const link = await createAndRead(sent);
          assert.deepEqual(withoutPerLink(link), withoutPerLink(documented));
        });
      }

      it("mixed with the documented spelling and the alias, gives the same link", async () => {
        const sent = respell(renamed(body, "shopperInfo", "ShopperInfos"), (name) => (name.length % 2 ? pascal(name) : name));
        const link = await createAndRead(sent);
        assert.deepEqual(withoutPerLink(link), withoutPerLink(documented));
      });

      it("two names of one object that differ only in case are 2013, at any depth", async () => {
        const before = await linkCount();
        expectError(await create({ ...body, Type: "PayByLink" }), 400, "2013", '"type"', '"Type"');
        const items = body.items as Array<Record<string, unknown>>;
        const doubled = [{ ...items[0], Name: "Lopapeysa" }, items[1]];
        expectError(await create({ ...body, items: doubled }), 400, "2013", "items[0]", '"Name"');
        const entries = [{ field: "City", requirementType: "Required", RequirementType: "Required" }];
        expectError(await create({ ...body, shopperInfo: entries }), 400, "2013", "shopperInfo[0]");
        assert.equal(await linkCount(), before);
      });

      it("an unknown property is still 1006, named as sent, at any depth", async () => {
        expectError(await create({ ...body, Colour: "red" }), 400, "1006", "Colour");
        const items = (body.items as Array<Record<string, unknown>>).map((item) => ({ ...item, Sku: "A1" }));
        expectError(await create(respell({ ...body, items }, pascal)), 400, "1006", "Sku");
        // Server-managed fields are known on update only; on create they stay unknown.
        expectError(await create({ ...body, Status: "Active" }), 400, "1006", "Status");
      });

      it("errors name a field by its documented spelling", async () => {
        const sent = respell(body, pascal) as Record<string, any>;
        expectError(await create({ ...sent, TerminalIdentifier: "short" }), 400, "2017", "terminalIdentifier");
        const items = [{ ...sent.Items[0], Quantity: 0 }];
        expectError(await create({ ...sent, Items: items }), 400, "2002", "items[0].quantity");
      });

      it("property names that mean something to JavaScript are plain unknown fields", async () => {
        for (const name of ["constructor", "toString", "hasOwnProperty", "valueOf", "__defineGetter__", "Prototype"]) {
          expectError(await create({ ...body, [name]: { polluted: true } }), 400, "1006", name);
        }
        const raw = `{"__proto__": {"polluted": true}, "type": "PayByLink"}`;
        const response = await create(raw);
        assert.equal(response.status, 400, JSON.stringify(response.body));
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
      });

      it("an update in PascalCase round-trips a read link and changes it", async () => {
        const reference = expectOk(await create(body)).paymentLinkReference;
        const { submissions: _submissions, ...link } = await read(reference);
        const sent = respell({ ...link, description: "Spring sale", maxSalesCount: 7, culture: "is" }, pascal) as Record<string, unknown>;
        assert.ok("PaymentLinkReference" in sent && "ShopperInfo" in sent && "VisitCount" in sent);
        expectOk(await server.api("POST", UPDATE, sent));
        const after = await read(reference);
        assert.deepEqual(
          withoutPerLink(after),
          withoutPerLink({ ...documented, description: "Spring sale", maxSalesCount: 7, culture: "is" }),
        );

        // Unchanged fields sent back in any case are accepted as unchanged, including the price.
        expectOk(await server.api("POST", UPDATE, respell(after, upper)));
        assert.deepEqual(await read(reference), after);
      });

      it("an update with a case-duplicate is 2013 and changes nothing", async () => {
        const reference = expectOk(await create(body)).paymentLinkReference;
        const sent = { paymentLinkReference: reference, Description: "one", description: "two" };
        expectError(await server.api("POST", UPDATE, sent), 400, "2013", "description");
        assert.equal((await read(reference)).description, "Winter sale");
      });
    });

    describe("random spellings", () => {
      it("every name in a random case gives the documented link; a case-duplicate 2013; an unknown name 1006; never a 5xx", async () => {
        const random = seeded(Number(process.env.FUZZ_SEED ?? 20_240_611));
        const before = await linkCount();
        let created = 0;
        for (let n = 0; n < 120; n++) {
          const sent = respell(body, (name) => randomCase(random, name)) as Record<string, any>;
          // One object of the body: the top level, a cart item or a shopper field.
          const objects = [sent, ...sent[findName(sent, "items")], ...sent[findName(sent, "shopperInfo")]];
          const target = objects[Math.floor(random() * objects.length)];
          const roll = random();
          const label = `case ${n}: ${JSON.stringify(sent).slice(0, 300)}`;
          if (roll < 0.25) {
            const name = Object.keys(target)[Math.floor(random() * Object.keys(target).length)]!;
            let twin = randomCase(random, name);
            while (twin === name) twin = randomCase(random, name);
            target[twin] = target[name];
            const response = await create(sent);
            assert.equal(`${response.status} ${response.body.errorCode}`, "400 2013", label);
          } else if (roll < 0.4) {
            target[randomCase(random, "colour")] = "red";
            const response = await create(sent);
            assert.equal(`${response.status} ${response.body.errorCode}`, "400 1006", label);
          } else {
            const link = await createAndRead(sent);
            assert.deepEqual(withoutPerLink(link), withoutPerLink(documented), label);
            created++;
          }
        }
        assert.equal(await linkCount(), before + created);
      });
    });

    describe("Idempotency-Key with other spellings", () => {
      it("a retry of the same bytes replays; the same request in another letter case replays too", async () => {
        const key = `dialects-${backend.name}-${Date.now()}`;
        const pascalBody = JSON.stringify(respell(body, pascal));
        const first = expectOk(await create(pascalBody, { "idempotency-key": key }));
        const retry = await create(pascalBody, { "idempotency-key": key });
        assert.equal(retry.headers.get("idempotent-replayed"), "true");
        assert.deepEqual(retry.body, first);
        const camel = await create(body, { "idempotency-key": key });
        assert.equal(camel.headers.get("idempotent-replayed"), "true");
        assert.deepEqual(camel.body, first);
        expectError(await create(respell({ ...body, description: "other" }, pascal), { "idempotency-key": key }), 422, "3004");
      });
    });

    describe("list query parameters", () => {
      before(async () => {
        for (let i = 0; i < 6; i++) expectOk(await create({ ...body, description: `list ${i}` }));
      });

      it("?Page=0&PageSize=5&foo=1 lists 5", async () => {
        const page = expectOk(await server.api("GET", `${LIST}?Page=0&PageSize=5&foo=1`));
        assert.equal(page.data.length, 5);
        assert.ok(page.totalCount > 5);
      });

      it("names in any case mean the same as the documented ones", async () => {
        const documentedPage = expectOk(await server.api("GET", `${LIST}?page=1&pageSize=2&status=Active&type=PayByLink&search=list`));
        const otherPage = expectOk(await server.api("GET", `${LIST}?PAGE=1&pagesize=2&Status=Active&TYPE=PayByLink&Search=list`));
        assert.deepEqual(
          otherPage.data.map((entry: any) => entry.paymentLinkReference),
          documentedPage.data.map((entry: any) => entry.paymentLinkReference),
        );
        assert.equal(otherPage.data.length, 2);
        assert.equal(otherPage.totalCount, 6);
        // The values are still checked, whatever the name's case.
        expectError(await server.api("GET", `${LIST}?PageSize=101`), 400, "2009", "pageSize");
        expectError(await server.api("GET", `${LIST}?STATUS=Nope`), 400, "2003", "status");
      });

      it("unknown parameters are ignored", async () => {
        const plain = expectOk(await server.api("GET", LIST));
        const extra = expectOk(await server.api("GET", `${LIST}?colour=red&Foo=1&foo=2&constructor=x&__proto__=y`));
        assert.equal(extra.totalCount, plain.totalCount);
        assert.equal(extra.data.length, plain.data.length);
      });

      it("one parameter twice in different cases is 2013", async () => {
        expectError(await server.api("GET", `${LIST}?page=0&Page=1`), 400, "2013", '"page"', '"Page"');
      });
    });

    describe("currency in lower case", () => {
      it("is accepted on create and read back in upper case", async () => {
        const link = await createAndRead({ ...body, currency: "isk" });
        assert.deepEqual(withoutPerLink(link), withoutPerLink(documented));
        const euro = await createAndRead(
          respell({ type: "PayByLink", terminalIdentifier: server.terminalIdentifier, amount: 1250, currency: "eUr", items: [] }, pascal),
        );
        assert.equal(euro.currency, "EUR");
      });

      it("is accepted on update and read back in upper case", async () => {
        const reference = expectOk(await create({ ...body, items: [], amount: 1250, currency: "EUR" })).paymentLinkReference;
        expectOk(await server.api("POST", UPDATE, { PaymentLinkReference: reference, Currency: "usd" }));
        assert.equal((await read(reference)).currency, "USD");
        // The same code in lower case is no change at all.
        expectOk(await server.api("POST", UPDATE, { paymentLinkReference: reference, currency: "usd" }));
        assert.equal((await read(reference)).currency, "USD");
      });
    });

    describe("the admin API stays exact", () => {
      it("refuses a property name in another case as unknown (1006)", async () => {
        const response = await fetch(`${server.baseUrl}/admin/v1/merchants`, {
          method: "POST",
          headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
          body: JSON.stringify({ Name: "Shop" }),
        });
        const error = (await response.json()) as { errorCode: string; errorMessage: string };
        assert.equal(`${response.status} ${error.errorCode}`, "400 1006", JSON.stringify(error));
      });
    });
  });
}
