// Reading the audit log, on both databases over real HTTP (docs/portal.md#audit-log,
// docs/admin-api.md#audit-log): the portal's page newest first with its filters and pages in both
// languages, its CSV read back as columns (";" in Icelandic, "," in English, a byte-order mark),
// the admin API's paged and filtered read, and one merchant never seeing another's entries.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { insertAuditEntry } from "../../src/db/audit-repository.ts";
import { apiKeyActor } from "../../src/domain/audit/actor.ts";
import { AUDIT_CSV_HEADER, auditCsv } from "../../src/portal/audit-csv.ts";
import { parseCsv } from "../support/audit.ts";
import { testBackends } from "../support/databases.ts";
import { type MerchantFixture, startTestServer, type TestServer } from "../support/harness.ts";
import { type PortalClient, pagerLink, signedIn } from "../support/portal.ts";
import { createLink } from "../support/shopper.ts";

const today = () => new Date().toISOString().slice(0, 10);

for (const backend of testBackends()) {
  describe(`reading the audit log (${backend.name})`, () => {
    let server: TestServer;
    let other: MerchantFixture;
    let busy: MerchantFixture;
    let portal: PortalClient;
    let ownLinks: string[];
    let othersLink: string;

    before(async () => {
      server = await startTestServer({ backend });
      other = await server.addMerchant();
      busy = await server.addMerchant();
      ownLinks = [await createLink(server, { description: "first" }), await createLink(server, { description: "second" })];
      othersLink = await createLink({ ...other, baseUrl: server.baseUrl }, { description: "theirs" });
      await server.api("POST", "/api/v1/paymentlinks/disable", { paymentLinkReference: ownLinks[0] });
      portal = await signedIn(server, server, "gudrun@example.com");
      // 30 entries of a third merchant, for the pages.
      for (let n = 0; n < 30; n++) {
        await insertAuditEntry(server.db, {
          merchantId: busy.merchantId,
          actor: apiKeyActor({ keyId: "key_busy", keyPrefix: "plk_busy" }, "192.0.2.1"),
          action: "link.create",
          object: { type: "payment-link", id: `BUSY${String(n).padStart(2, "0")}` },
        });
      }
    });
    after(() => server.close());

    test("the page lists the merchant's entries newest first, in English and Icelandic", async () => {
      const page = await portal.get("/portal/audit?lang=en");
      assert.equal(page.status, 200);
      assert.match(page.text, /Audit log/);
      const actions = [...page.html.matchAll(/<tr data-action="([^"]+)"/g)].map((m) => m[1]);
      assert.deepEqual(actions, ["sign-in", "link.disable", "link.create", "link.create"]);
      assert.match(page.text, /Signed in.*gudrun@example\.com/s);
      assert.match(page.text, /Link disabled/);
      assert.ok(page.html.includes(ownLinks[0]!) && page.html.includes(ownLinks[1]!));
      assert.ok(!page.html.includes(othersLink), "another merchant's link is not in the log");
      assert.match(page.text, /127\.0\.0\.1/);

      const icelandic = await portal.get("/portal/audit?lang=is");
      assert.match(icelandic.text, /Atvikaskrá/);
      assert.match(icelandic.text, /Hlekkur óvirkjaður/);
      assert.match(icelandic.text, /Innskráning/);
    });

    test("filters: action, person, object and date range", async () => {
      const rows = async (query: string) =>
        [...(await portal.get(`/portal/audit?lang=en&${query}`)).html.matchAll(/<tr data-action="([^"]+)"/g)].map((m) => m[1]);
      assert.deepEqual(await rows("action=link.create"), ["link.create", "link.create"]);
      assert.deepEqual(await rows("person=GUDRUN@example.com"), ["sign-in"], "the person's e-mail, in any case");
      assert.deepEqual(await rows(`object=${ownLinks[0]}`), ["link.disable", "link.create"]);
      assert.deepEqual(await rows(`object=${othersLink}`), [], "another merchant's object finds nothing");
      assert.equal((await rows(`from=${today()}&to=${today()}`)).length, 4);
      assert.deepEqual(await rows("from=2099-01-01"), []);
      assert.deepEqual(await rows("to=2000-01-01"), []);
      assert.equal((await rows("action=no-such-action&from=not-a-date")).length, 4, "a filter that cannot be read filters nothing");
    });

    test("pages of 25, and the other merchant's page shows only its own", async () => {
      const busyPortal = await signedIn(server, busy, "busy@example.com");
      const first = await busyPortal.get("/portal/audit?lang=en&action=link.create");
      const objects = (html: string) => [...html.matchAll(/>(BUSY\d\d)</g)].map((m) => m[1]);
      assert.equal(objects(first.html).length, 25);
      assert.equal(objects(first.html)[0], "BUSY29", "newest first");
      assert.match(first.text, /Page 1 of 2 \(30 entries\)/);
      const next = pagerLink(first.html, "Next");
      assert.ok(next);
      const second = await busyPortal.get(next);
      assert.deepEqual(objects(second.html), ["BUSY04", "BUSY03", "BUSY02", "BUSY01", "BUSY00"]);
      assert.ok(!first.html.includes(ownLinks[0]!) && !second.html.includes(ownLinks[0]!));
    });

    test("the CSV reads back as columns, in either language", async () => {
      for (const [lang, separator] of [
        ["en", ","],
        ["is", ";"],
      ] as const) {
        const download = await fetch(`${server.baseUrl}/portal/audit.csv?lang=${lang}`, { headers: { cookie: portal.cookieHeader() } });
        assert.equal(download.status, 200);
        assert.match(download.headers.get("content-type") ?? "", /^text\/csv; charset=utf-8/);
        assert.match(download.headers.get("content-disposition") ?? "", /attachment; filename="paylink-audit-/);
        const bytes = new Uint8Array(await download.arrayBuffer());
        assert.deepEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf], "UTF-8 with a byte-order mark");
        const rows = parseCsv(new TextDecoder().decode(bytes.slice(3)), separator);
        assert.deepEqual(rows[0], AUDIT_CSV_HEADER);
        const body = rows.slice(1);
        assert.equal(body.length, 4, "the sign-in, the disable, the two creates");
        for (const row of body) assert.equal(row.length, AUDIT_CSV_HEADER.length, `every row has every column: ${row.join("|")}`);
        const column = (name: string) => body.map((row) => row[AUDIT_CSV_HEADER.indexOf(name)]);
        assert.deepEqual(column("action").slice(-3), ["link.disable", "link.create", "link.create"]);
        assert.deepEqual(column("objectId").slice(-3), [ownLinks[0], ownLinks[1], ownLinks[0]]);
        assert.equal(column("actor").at(-1), server.apiKey.slice(0, 8));
        assert.deepEqual(JSON.parse(column("details").at(-1)!), { type: "PayByLink", amount: 48900, currency: "ISK" });
        assert.ok(column("time").every((t) => !Number.isNaN(Date.parse(t!))));
        assert.ok(!body.flat().includes(othersLink));
      }
      let inTwos = "";
      for await (const piece of await auditCsv(server.db, busy.merchantId, { action: "link.create" }, "en", 2)) inTwos += piece;
      const whole = parseCsv(inTwos.slice(1), ",");
      assert.equal(whole.length, 31, "batches of two read every entry once");
      assert.equal(new Set(whole.slice(1).map((row) => row[6])).size, 30);
    });

    test("the details read in the page's language; the CSV keeps the stored English keys", async () => {
      const worded = await server.addMerchant();
      await insertAuditEntry(server.db, {
        merchantId: worded.merchantId,
        actor: apiKeyActor({ keyId: "key_words", keyPrefix: "plk_word" }, "192.0.2.9"),
        action: "link.update",
        object: { type: "payment-link", id: "WORDED01" },
        details: { fields: ["amount", "description"], alreadyDisabled: true, type: "PayByLink", unheardOf: "kept" },
      });
      const wordedPortal = await signedIn(server, worded, "worded@example.com");
      const detailsOf = async (lang: string) => {
        const html = (await wordedPortal.get(`/portal/audit?lang=${lang}&action=link.update`)).html;
        // The database keeps the keys in its own order: compare the pairs, not their order.
        return /<tr data-action="link.update">.*?<td data-label="[^"]*"><span>([^<]*)<\/span><\/td><\/tr>/s
          .exec(html)?.[1]
          ?.split(" · ")
          .sort();
      };
      assert.deepEqual(await detailsOf("is"), ["breytt: upphæð, lýsing", "tegund: greiðsla", "unheardOf: kept", "þegar óvirkt: já"].sort());
      assert.deepEqual(
        await detailsOf("en"),
        ["already disabled: yes", "changed: amount, description", "type: payment", "unheardOf: kept"].sort(),
      );
      const download = await fetch(`${server.baseUrl}/portal/audit.csv?lang=is`, { headers: { cookie: wordedPortal.cookieHeader() } });
      const rows = parseCsv((await download.text()).replace(/^\uFEFF/, ""), ";");
      const details = rows.find((row) => row.includes("WORDED01"))?.[AUDIT_CSV_HEADER.indexOf("details")];
      assert.deepEqual(JSON.parse(details!), {
        fields: ["amount", "description"],
        alreadyDisabled: true,
        type: "PayByLink",
        unheardOf: "kept",
      });
    });

    test("the admin API reads the log paged and filtered; bad filters are a 400; an unknown merchant a 404", async () => {
      const read = async (merchantId: string, query = "") => {
        const response = await fetch(`${server.baseUrl}/admin/v1/merchants/${merchantId}/audit${query}`, {
          headers: { authorization: `Bearer ${server.adminToken}` },
        });
        return { status: response.status, body: (await response.json()) as any };
      };
      const all = await read(server.merchantId);
      assert.equal(all.status, 200);
      assert.ok(all.body.totalCount >= 4);
      const created = all.body.data.find((e: any) => e.action === "link.create");
      assert.deepEqual(Object.keys(created).sort(), ["action", "actor", "address", "createdAt", "details", "id", "object"]);
      assert.equal(created.actor.kind, "api-key");
      assert.equal(created.actor.label, server.apiKey.slice(0, 8));
      assert.equal(created.address, "127.0.0.1");
      assert.ok(all.body.data.every((e: any) => e.object.id !== othersLink));

      const page = await read(busy.merchantId, "?pageSize=10&page=2&action=link.create");
      assert.deepEqual(
        page.body.data.map((e: any) => e.object.id),
        Array.from({ length: 10 }, (_, n) => `BUSY${String(9 - n).padStart(2, "0")}`),
      );
      assert.equal(page.body.totalCount, 30);
      const filtered = await read(server.merchantId, `?action=link.disable&objectId=${ownLinks[0]}`);
      assert.deepEqual(
        filtered.body.data.map((e: any) => e.action),
        ["link.disable"],
      );
      const byKey = await read(server.merchantId, `?actor=${server.apiKey.slice(0, 8)}&from=2000-01-01T00:00:00Z&to=2099-01-01T00:00:00Z`);
      assert.equal(byKey.body.totalCount, 3);
      assert.equal((await read(server.merchantId, "?from=yesterday")).status, 400);
      assert.equal((await read(server.merchantId, "?pageSize=1000")).status, 400);
      assert.equal((await read(server.merchantId, "?colour=red")).status, 400);
      assert.equal((await read("mer_nosuchmerchant")).status, 404);
      const refused = await fetch(`${server.baseUrl}/admin/v1/merchants/${server.merchantId}/audit`);
      assert.equal(refused.status, 401);
    });
  });
}
