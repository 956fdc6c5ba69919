// The portal's link pages over real HTTP: create both types through the form (amounts as people
// type them, items summed), the API's rules shown beside the fields, the list's filters and
// pages, the detail page with its submissions, disable/enable and edit with the update rules.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { getLink } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { type PortalClient, pagerLink, signedIn } from "../support/portal.ts";
import { cardFields, pay } from "../support/shopper.ts";

/** A regular expression match that reports a short excerpt, not a whole page, when it fails. */
function has(html: string, pattern: RegExp): void {
  assert.ok(pattern.test(html), `${pattern} not in: ${html.replace(/<style[\s\S]*?<\/style>/, "").slice(0, 1500)}`);
}

describe("portal links (pglite)", () => {
  let server: TestServer;
  let portal: PortalClient;
  before(async () => {
    server = await startTestServer();
    portal = await signedIn(server);
  });
  after(() => server?.close());

  const twoItems = () => ({
    type: "PayByLink",
    terminalIdentifier: server.terminalIdentifier,
    currency: "ISK",
    itemName: ["Lopapeysa", "Ullarsokkar", ""],
    itemQuantity: ["1", "2", ""],
    itemUnitPrice: ["10900", "490", ""],
    itemAmount: ["", "880", ""],
    description: "Order 1001",
    culture: "en",
    "shopper-FullName": "Required",
    "shopper-EmailAddress": "Prefilled",
    "prefill-EmailAddress": "anna@example.com",
    exactSalesCount: "3",
    returnUrl: "https://shop.example.com/thanks",
  });

  async function createViaForm(fields: Record<string, string | string[]>) {
    const form = await portal.get("/portal/links/new");
    assert.equal(form.status, 200);
    return portal.post("/portal/links/new", fields, form);
  }

  test("a pay link with two items: amounts typed in krónur, a discount, the total summed; the API reads what the form made", async () => {
    const created = await createViaForm(twoItems());
    assert.equal(created.status, 303, created.text.slice(0, 500));
    const reference = /^\/portal\/links\/([A-Za-z0-9]+)$/.exec(created.location ?? "")?.[1];
    assert.ok(reference, created.location ?? "");
    const link = await getLink(server, reference);
    assert.equal(link.amount, 1178000);
    assert.deepEqual(
      link.items.map((i: any) => [i.name, i.quantity, i.unitPrice, i.amountWithoutDiscount, i.amount]),
      [
        ["Lopapeysa", 1, 1090000, 1090000, 1090000],
        ["Ullarsokkar", 2, 49000, 98000, 88000],
      ],
    );
    assert.equal(link.maxSalesCount, 3);
    assert.equal(link.culture, "en");
    assert.deepEqual(link.shopperInfo, [
      { field: "FullName", requirementType: "Required", prefilledValue: null },
      { field: "EmailAddress", requirementType: "Prefilled", prefilledValue: "anna@example.com" },
    ]);
    const detail = await portal.get(`/portal/links/${reference}`);
    assert.equal(detail.status, 200);
    assert.match(detail.text, /Lopapeysa/);
    has(detail.html, new RegExp(`${server.baseUrl}/pay/${reference}`));
    has(detail.html, new RegExp(`src="/pay/${reference}/qr.svg"`));
  });

  test("Icelandic amounts: 18.900 and 18900 both mean 18,900 kr.; a form shown again has the items' total", async () => {
    await portal.get("/portal/links?lang=is");
    try {
      for (const typed of ["18.900", "18900"]) {
        const created = await createViaForm({ ...twoItems(), itemUnitPrice: [typed, "490", ""] });
        assert.equal(created.status, 303, created.text.slice(0, 500));
        const link = await getLink(server, created.location!.split("/").pop()!);
        assert.equal(link.items[0].unitPrice, 1890000, typed);
        assert.equal(link.amount, 1890000 + 88000, typed);
      }
      // The form shown again after a problem has the total of the items typed, in the page's language.
      const again = await createViaForm({ ...twoItems(), itemUnitPrice: ["18.900", "490", ""], returnUrl: "http://shop.example.com/" });
      assert.equal(again.status, 400);
      has(
        again.html,
        /<span id="items-total-label">Samtala varanna<\/span> <output data-total="true" data-lang="is"[^>]*aria-live="polite">19\.780 kr\.<\/output>/,
      );
      const unreadable = await createViaForm({ ...twoItems(), itemUnitPrice: ["átján", "490", ""] });
      has(unreadable.html, /<output data-total[^>]*>—<\/output>/);
    } finally {
      await portal.get("/portal/links?lang=en");
    }
  });

  test("a save-card link: no items, amount 0, single use", async () => {
    const created = await createViaForm({
      type: "TokenizeByLink",
      terminalIdentifier: server.terminalIdentifier,
      currency: "ISK",
      recurringProcessingModel: "Subscription",
      culture: "is",
    });
    assert.equal(created.status, 303, created.text.slice(0, 400));
    const link = await getLink(server, created.location!.split("/").pop()!);
    assert.equal(link.type, "TokenizeByLink");
    assert.equal(link.amount, 0);
    assert.equal(link.maxSalesCount, 1);
    assert.equal(link.recurringProcessingModel, "Subscription");
  });

  test("problems are shown beside their fields: an unreadable price, and the API's own rule for the return address", async () => {
    const unreadable = await createViaForm({ ...twoItems(), itemUnitPrice: ["ten", "490", ""] });
    assert.equal(unreadable.status, 400);
    has(unreadable.html, /id="item-0-unitPrice-error"[^>]*>Enter an amount such as 4890 or 12\.50\./);
    has(unreadable.html, /value="ten"/);
    const insecure = await createViaForm({ ...twoItems(), returnUrl: "http://shop.example.com/thanks" });
    assert.equal(insecure.status, 400);
    has(insecure.html, /id="returnUrl"[^>]*aria-invalid="true"/);
    has(insecure.html, /id="returnUrl-error"[^>]*>returnUrl .* must use https:\/\//);
    const noPrefill = await createViaForm({ ...twoItems(), "prefill-EmailAddress": "" });
    assert.equal(noPrefill.status, 400);
    has(noPrefill.html, /id="shopper-EmailAddress-error"/);
    const past = await createViaForm({ ...twoItems(), expiresAt: "2001-01-01T12:00" });
    assert.equal(past.status, 400);
    has(past.html, /id="expiresAt-error"[^>]*>expiresAt .* is in the past/);
  });

  test("the list filters by search, status and type, and pages", async () => {
    for (let i = 0; i < 3; i++) assert.equal((await createViaForm({ ...twoItems(), description: `Findme ${i}` })).status, 303);
    const found = await portal.get("/portal/links?search=findme");
    assert.equal(found.status, 200);
    assert.equal((found.html.match(/<tr>/g) ?? []).length - 1, 3);
    const tokenize = await portal.get("/portal/links?type=TokenizeByLink");
    assert.match(tokenize.text, /Page 1 of 1 \(1 links\)/);
    const paged = await portal.get("/portal/links?page=2");
    assert.equal(paged.status, 200);

    // A search of two pages: the pager's links keep the search and lead back and forth.
    for (let i = 0; i < 21; i++) assert.equal((await createViaForm({ ...twoItems(), description: `Pageme ${i}` })).status, 303);
    const first = await portal.get("/portal/links?search=pageme");
    assert.match(first.text, /Page 1 of 2 \(21 links\)/);
    assert.equal(pagerLink(first.html, "Previous"), undefined);
    const second = await portal.get(pagerLink(first.html, "Next") ?? "/portal/links?no-next-link");
    assert.match(second.text, /Page 2 of 2 \(21 links\)/);
    assert.match(second.text, /Pageme 0\b/, "the oldest match is on the last page");
    assert.equal(pagerLink(second.html, "Next"), undefined);
    const back = await portal.get(pagerLink(second.html, "Previous") ?? "/portal/links?no-previous-link");
    assert.match(back.text, /Page 1 of 2 \(21 links\)/);
    assert.match(back.text, /Pageme 20\b/, "the newest match leads the first page");
    const nonsense = await portal.get("/portal/links?status=Bogus&createdFrom=yesterday&page=-3");
    assert.equal(nonsense.status, 200, "unreadable filters filter nothing");
  });

  test("a busy link's submissions come newest first, fifty a page, with a pager", async () => {
    const created = await createViaForm({ ...twoItems(), description: "Busy link" });
    const reference = created.location!.split("/").pop()!;
    // 120 declined attempts, two to a minute: "Shopper 1" the oldest, "Shopper 120" the newest;
    // of two at one instant the greater reference is the newer.
    await sql`INSERT INTO submissions (id, link_reference, answers, amount, currency, state, completed, created_at)
              SELECT 'busy-' || ${reference} || '-' || lpad(g::text, 3, '0'), ${reference},
                     jsonb_build_array(jsonb_build_object('field', 'FullName', 'value', 'Shopper ' || g)), 11880, 'ISK', 'declined', false,
                     timestamptz '2026-05-01 12:00:00+00' + (g / 2) * interval '1 minute'
              FROM generate_series(1, 120) g`.execute(server.db);
    const shoppers = (html: string) => [...html.matchAll(/Shopper (\d+)/g)].map((match) => Number(match[1]));
    const first = await portal.get(`/portal/links/${reference}`);
    assert.equal(first.status, 200);
    has(first.text, /Page 1 of 3 \(120 submissions, newest first\)/);
    assert.deepEqual(
      shoppers(first.html),
      Array.from({ length: 50 }, (_, i) => 120 - i),
    );
    const second = await portal.get(pagerLink(first.html, "Next") ?? "/portal/no-next-link");
    assert.deepEqual(
      shoppers(second.html),
      Array.from({ length: 50 }, (_, i) => 70 - i),
    );
    const third = await portal.get(pagerLink(second.html, "Next") ?? "/portal/no-next-link");
    has(third.text, /Page 3 of 3 \(120 submissions, newest first\)/);
    assert.deepEqual(
      shoppers(third.html),
      Array.from({ length: 20 }, (_, i) => 20 - i),
    );
    assert.equal(pagerLink(third.html, "Next"), undefined);
    assert.deepEqual(shoppers((await portal.get(pagerLink(third.html, "Previous") ?? "/portal/no-link")).html), shoppers(second.html));
    // An unreadable page number is the first page; a page past the last is empty but still counts them.
    for (const page of ["abc", "0", "x".repeat(300)]) {
      const unreadable = await portal.get(`/portal/links/${reference}?page=${page}`);
      assert.equal(unreadable.status, 200, page);
      assert.deepEqual(shoppers(unreadable.html), shoppers(first.html), page);
    }
    const beyond = await portal.get(`/portal/links/${reference}?page=9`);
    has(beyond.text, /Page 9 of 3 \(120 submissions, newest first\)/);
    assert.deepEqual(shoppers(beyond.html), []);
    assert.doesNotMatch(beyond.text, /No one has paid/);
    // A link with a few submissions shows them all, without a pager.
    const quiet = await createViaForm({ ...twoItems(), description: "Quiet link" });
    const quietPage = await portal.get(quiet.location!);
    assert.equal(pagerLink(quietPage.html, "Next"), undefined);
    assert.doesNotMatch(quietPage.html, /class="pager"/);
    has(quietPage.text, /No one has paid through this link yet\./);
  });

  test("disable and enable from the detail page; edit follows the update rules (price frozen after a sale)", async () => {
    const created = await createViaForm(twoItems());
    const reference = created.location!.split("/").pop()!;
    let detail = await portal.get(`/portal/links/${reference}`);
    assert.doesNotMatch(detail.html, /<form method="post" action="[^"]*\/disable"/, "no one-click disable");
    const question = await portal.get(`/portal/links/${reference}/disable`);
    assert.match(question.text, new RegExp(`Disable the link ${reference}\\?`));
    assert.equal((await getLink(server, reference)).status, "Active", "asking changes nothing");
    const disabled = await portal.post(`/portal/links/${reference}/disable`, {}, question);
    assert.equal(disabled.status, 303);
    assert.equal((await getLink(server, reference)).status, "Disabled");
    assert.match((await portal.get(disabled.location!)).text, /The link is disabled\./);
    assert.equal((await portal.get(`/portal/links/${reference}/disable`)).status, 404, "no question about a disabled link");
    has((await portal.get("/portal/links?status=Disabled")).html, new RegExp(reference));
    detail = await portal.get(`/portal/links/${reference}`);
    const enabled = await portal.post(`/portal/links/${reference}/enable`, {}, detail);
    assert.equal(enabled.status, 303);
    assert.equal((await getLink(server, reference)).status, "Active");
    assert.match((await portal.get(enabled.location!)).text, /The link is active again\./);

    const payment = await pay(server.baseUrl, reference, { ...cardFields(), FullName: "Anna Jónsdóttir" });
    assert.equal(payment.status, 303, payment.html.slice(0, 300));
    detail = await portal.get(`/portal/links/${reference}`);
    assert.match(detail.text, /Anna Jónsdóttir/);
    assert.match(detail.text, /Approved/);
    assert.match(detail.text, /•+ ?1111|1111/);

    const edit = await portal.get(`/portal/links/${reference}/edit`);
    assert.equal(edit.status, 200);
    const renamed = await portal.post(`/portal/links/${reference}/edit`, { ...twoItems(), description: "Renamed" }, edit);
    assert.equal(renamed.status, 303, renamed.text.slice(0, 400));
    assert.equal((await getLink(server, reference)).description, "Renamed");
    const repriced = await portal.post(`/portal/links/${reference}/edit`, { ...twoItems(), itemUnitPrice: ["20000", "490", ""] }, edit);
    assert.equal(repriced.status, 400);
    assert.match(repriced.text, /cannot change after a sale/);
    assert.equal((await getLink(server, reference)).amount, 1178000);
  });
});
