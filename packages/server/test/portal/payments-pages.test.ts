// The payments list a page at a time over real HTTP on both databases (docs/decisions.md docs/decisions.md#portal-payments):
// the page is chosen on references and times alone and its rows are read afterwards, so this checks
// that the pages keep the order (newest first, the reference breaking a tie), the count, the
// filters and the merchant's bounds, and that every row on a page is whole.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { CSV_HEADER, paymentsCsv } from "../../src/portal/payments-csv.ts";
import { sellLink } from "../support/after-sale.ts";
import { testBackends } from "../support/databases.ts";
import { addMerchantFixture, startTestServer, type TestServer } from "../support/harness.ts";
import { type PortalClient, pagerLink, signedIn } from "../support/portal.ts";

/** "source reference" per row of the payments table, in order: the charge's own reference, or "link". */
function rowsOf(html: string): string[] {
  return [...html.matchAll(/<tr[^>]*data-source="(link|token)"[^>]*>([\s\S]*?)<\/tr>/g)].map(
    (m) => `${m[1]} ${/bulk-\d\d/.exec(m[2]!)?.[0] ?? "link"}`,
  );
}

for (const backend of testBackends()) {
  describe(`portal payments pages (${backend.name})`, () => {
    let server: TestServer;
    let portal: PortalClient;
    let linkReference: string;
    let third: Awaited<ReturnType<typeof addMerchantFixture>>;
    before(async () => {
      server = await startTestServer({ backend });
      portal = await signedIn(server);
      linkReference = (await sellLink(server, 48900)).linkReference;
      const other = await addMerchantFixture(server.db);
      third = await addMerchantFixture(server.db);
      const hourAgo = Date.now() - 3_600_000;
      // 30 finished charges a minute apart (bulk-00 newest), bulk-28 and bulk-29 at the same instant;
      // 3 pending ones (not payments yet) and 5 of another merchant in between.
      const row = (id: string, merchantId: string, terminal: string, reference: string, state: string, at: number) => ({
        id,
        merchant_id: merchantId,
        terminal_identifier: terminal,
        token: "TOKEN0000000000A",
        merchant_reference: reference,
        amount: 1000 + Number(reference.slice(-2)) * 100,
        currency: "ISK",
        state,
        payfac_reference: state === "pending" ? null : `PF${id}`,
        created_at: new Date(at),
      });
      const mine = (n: number) => String(n).padStart(2, "0");
      await server.db
        .insertInto("token_payments")
        .values([
          ...Array.from({ length: 30 }, (_, n) =>
            row(
              `CHK${mine(n)}A`,
              server.merchantId,
              server.terminalIdentifier,
              `bulk-${mine(n)}`,
              n % 7 === 3 ? "declined" : "approved",
              hourAgo - Math.min(n, 28) * 60_000,
            ),
          ),
          ...Array.from({ length: 3 }, (_, n) =>
            row(`PEN${n}`, server.merchantId, server.terminalIdentifier, `bulk-9${n}`, "pending", hourAgo - n * 60_000),
          ),
          ...Array.from({ length: 5 }, (_, n) =>
            row(`OTH${n}`, other.merchantId, other.terminalIdentifier, `bulk-8${n}`, "approved", hourAgo - n * 60_000),
          ),
        ])
        .execute();
    });
    after(() => server?.close());

    test("two pages, newest first, counted once; a tie in time goes by the reference; pending and others' payments are left out", async () => {
      const first = await portal.get("/portal/payments");
      assert.equal(first.status, 200);
      assert.match(first.text, /Page 1 of 2 \(31 payments\)/);
      const expected = [
        "link link",
        ...Array.from({ length: 28 }, (_, n) => `token bulk-${String(n).padStart(2, "0")}`),
        "token bulk-29", // CHK29A sorts after CHK28A: same instant, the greater reference first
        "token bulk-28",
      ];
      assert.deepEqual(rowsOf(first.html), expected.slice(0, 25));
      assert.match(first.html, new RegExp(`href="/portal/links/${linkReference}"`), "the link sale's row names its link");
      assert.match(first.text, /ISK 489/, "a row is whole: its amount");
      assert.match(first.text, /ISK 11\b/, "bulk-01's amount, ISK 1,100 in hundredths");
      const second = await portal.get("/portal/payments?page=2");
      assert.match(second.text, /Page 2 of 2 \(31 payments\)/);
      assert.deepEqual(rowsOf(second.html), expected.slice(25));
      const beyond = await portal.get("/portal/payments?page=3");
      assert.match(beyond.text, /Page 3 of 2 \(31 payments\)|Page \d+ of 2 \(31 payments\)/, "an empty page still counts them");
      assert.deepEqual(rowsOf(beyond.html), []);

      const declined = await portal.get("/portal/payments?result=declined");
      assert.deepEqual(rowsOf(declined.html), ["token bulk-03", "token bulk-10", "token bulk-17", "token bulk-24"]);
      assert.match(declined.text, /Page 1 of 1 \(4 payments\)/);
      const searched = await portal.get("/portal/payments?search=bulk-2");
      assert.match(searched.text, /\(10 payments\)/, "bulk-20 to bulk-29");
    });

    test("the pager's links lead from page to page and keep the filter", async () => {
      const first = await portal.get("/portal/payments?search=bulk");
      assert.match(first.text, /Page 1 of 2 \(30 payments\)/);
      assert.equal(pagerLink(first.html, "Previous"), undefined, "nothing before the first page");
      const next = pagerLink(first.html, "Next");
      assert.ok(next, "the first of two pages offers the next");
      const second = await portal.get(next);
      assert.match(second.text, /Page 2 of 2 \(30 payments\)/, `${next} kept the search`);
      assert.deepEqual(rowsOf(second.html), ["token bulk-25", "token bulk-26", "token bulk-27", "token bulk-29", "token bulk-28"]);
      assert.equal(pagerLink(second.html, "Next"), undefined, "nothing after the last page");
      const previous = pagerLink(second.html, "Previous");
      assert.ok(previous);
      const back = await portal.get(previous);
      assert.deepEqual(rowsOf(back.html), rowsOf(first.html), "Previous leads back to the first page");
      assert.equal(rowsOf(back.html).length, 25);
    });

    test("the CSV has every payment once, newest first, whether read in one batch or many", async () => {
      const lastColumn = (text: string) =>
        text
          .trim()
          .split("\r\n")
          .slice(1)
          .map((line) => line.split(",")[CSV_HEADER.indexOf("merchantReference")]);
      const expected = ["", ...Array.from({ length: 28 }, (_, n) => `bulk-${String(n).padStart(2, "0")}`), "bulk-29", "bulk-28"];
      const download = await portal.get("/portal/payments.csv");
      assert.equal(download.status, 200);
      assert.deepEqual(lastColumn(download.html), expected, "the link sale (no reference of its own) first, then the charges");
      let inFours = "";
      for await (const piece of await paymentsCsv(server.db, server.merchantId, {}, "en", 4)) inFours += piece;
      assert.equal(inFours, `\uFEFF${download.html}`, "batches of 4 (one ending inside the tie of bulk-28 and bulk-29) make the same file");
    });

    test("a CSV read in batches keeps payments a microsecond apart, and those at one instant, each once", async () => {
      const at = [
        "2026-01-01T00:00:00.000003Z",
        "2026-01-01T00:00:00.000002Z",
        "2026-01-01T00:00:00.000002Z",
        "2026-01-01T00:00:00.000001Z",
        "2026-01-01T00:00:00Z",
      ];
      await server.db
        .insertInto("token_payments")
        .values(
          at.map((time, n) => ({
            id: `MIC${n}${n % 2 === 0 ? "B" : "A"}`,
            merchant_id: third.merchantId,
            terminal_identifier: third.terminalIdentifier,
            token: "TOKEN0000000000A",
            merchant_reference: `micro-${n}`,
            amount: 1000,
            currency: "ISK",
            state: "approved",
            payfac_reference: `PFMIC${n}`,
            created_at: sql<Date>`${time}::timestamptz`,
          })),
        )
        .execute();
      for (const batchSize of [1, 2, 3, 100]) {
        let text = "";
        for await (const piece of await paymentsCsv(server.db, third.merchantId, {}, "en", batchSize)) text += piece;
        const references = text
          .trim()
          .split("\r\n")
          .slice(1)
          .map((line) => line.split(",")[CSV_HEADER.indexOf("merchantReference")]);
        // MIC1A and MIC2B share an instant: the greater reference first.
        assert.deepEqual(references, ["micro-0", "micro-2", "micro-1", "micro-3", "micro-4"], `batches of ${batchSize}`);
      }
    });

    test("a card is named as a person names it, and a decline reason is in the page's language", async () => {
      await server.db
        .insertInto("token_payments")
        .values({
          id: "CARDNAME0A",
          merchant_id: server.merchantId,
          terminal_identifier: server.terminalIdentifier,
          token: "TOKEN0000000000A",
          merchant_reference: "card-name",
          amount: 2500,
          currency: "ISK",
          state: "declined",
          reason: "Expired Card",
          payfac_reference: "PFCARDNAME0A",
          card_brand: "VI",
          card_masked: "411111******1111",
          card_last4: "1111",
          card_expiry: "03/2030",
        })
        .execute();
      await portal.get("/portal/overview?lang=is");
      try {
        const page = await portal.get("/portal/payments/CARDNAME0A");
        assert.match(page.text, /Visa •••• 1111/);
        assert.match(page.text, /411111\*{6}1111 · gildir til 03\/2030/);
        assert.match(page.text, /Kortið er útrunnið/);
        assert.doesNotMatch(page.text, /Expired Card|VI 411111/);
        const list = await portal.get("/portal/payments?result=declined");
        assert.match(list.text, /Visa •••• 1111/);
      } finally {
        await portal.get("/portal/overview?lang=en");
        await server.db.deleteFrom("token_payments").where("id", "=", "CARDNAME0A").execute();
      }
    });

    test("the CSV opens in an Icelandic spreadsheet: a byte-order mark, ; between cells, decimal commas", async () => {
      const fourth = await addMerchantFixture(server.db);
      await server.db
        .insertInto("token_payments")
        .values({
          id: "CSVIS0A",
          merchant_id: fourth.merchantId,
          terminal_identifier: fourth.terminalIdentifier,
          token: "TOKEN0000000000A",
          merchant_reference: "Jólamarkaður; 2026",
          amount: 1250,
          currency: "EUR",
          state: "approved",
          payfac_reference: "PFCSVIS0A",
        })
        .execute();
      let text = "";
      for await (const piece of await paymentsCsv(server.db, fourth.merchantId, {}, "is")) text += piece;
      const [header, row] = text.split("\r\n");
      assert.equal(header, `\uFEFF${CSV_HEADER.join(";")}`);
      const cells = row!.split(";");
      assert.equal(cells[CSV_HEADER.indexOf("amount")], "12,50");
      assert.match(row!, /;"Jólamarkaður; 2026";1250;0;;$/, "a cell holding the separator is quoted");
      let english = "";
      for await (const piece of await paymentsCsv(server.db, fourth.merchantId, {}, "en")) english += piece;
      assert.match(english.split("\r\n")[1]!, /,12\.50,EUR,.*,Jólamarkaður; 2026,1250,0,,$/);

      // Over HTTP the page's language decides, and the file's first bytes are the UTF-8 mark.
      await portal.get("/portal/overview?lang=is");
      try {
        const download = await fetch(`${server.baseUrl}/portal/payments.csv`, { headers: { cookie: portal.cookieHeader() } });
        const bytes = new Uint8Array(await download.arrayBuffer());
        assert.deepEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf]);
        assert.equal(new TextDecoder().decode(bytes).split("\r\n")[0], CSV_HEADER.join(";"));
      } finally {
        await portal.get("/portal/overview?lang=en");
      }
    });
  });
}
