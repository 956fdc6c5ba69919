// A link's first view is rendered once and kept (docs/decisions.md#checkout-pages): every response still has its own nonce
// and form token, and a changed link, theme or language is a new page, never a stale one.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { h, type VNode } from "preact";
import { FirstViewCache, FORM_TOKEN_MARKER, NONCE_MARKER } from "../../src/checkout/first-view-cache.ts";
import { CheckoutPage } from "../../src/checkout/views/checkout-page.tsx";
import { loadCheckoutLink } from "../../src/db/checkout-repository.ts";
import { renderDocument } from "../../src/web/html-page.ts";
import { pageTheme } from "../../src/web/theme.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { cardFields, createLink, getPage, hiddenInputs, postForm, textOf } from "../support/shopper.ts";

const nonceOf = (headers: Headers) => /'nonce-([^']+)'/.exec(headers.get("content-security-policy") ?? "")?.[1];

describe("first view cache", () => {
  it("swaps the markers for each response's values and renders a key once", () => {
    const cache = new FirstViewCache();
    let renders = 0;
    const render = () => {
      renders += 1;
      return `<style nonce="${NONCE_MARKER}"></style><input value="${FORM_TOKEN_MARKER}"><i>${NONCE_MARKER}</i>`;
    };
    assert.equal(cache.page("a", render, "n1", "t1"), `<style nonce="n1"></style><input value="t1"><i>n1</i>`);
    assert.equal(cache.page("a", render, "n2", "t2"), `<style nonce="n2"></style><input value="t2"><i>n2</i>`);
    assert.equal(renders, 1);
    cache.page("b", render, "n3", "t3");
    assert.equal(renders, 2);
  });

  it("keeps at most its size in characters, dropping the least recently used", () => {
    const cache = new FirstViewCache(30);
    const made: string[] = [];
    const render = (key: string) => () => {
      made.push(key);
      return "x".repeat(9);
    };
    cache.page("k1", render("k1"), "", "");
    cache.page("k2", render("k2"), "", "");
    cache.page("k1", render("k1"), "", ""); // k1 used again: k2 is now the oldest
    cache.page("k3", render("k3"), "", ""); // 33 characters: k2 goes
    assert.equal(cache.size, 2);
    cache.page("k1", render("k1"), "", "");
    cache.page("k2", render("k2"), "", "");
    assert.deepEqual(made, ["k1", "k2", "k3", "k2"]);
    cache.page("huge", () => "y".repeat(100), "", "");
    assert.equal(cache.size, 2, "a page larger than the whole cache is sent, not kept");
  });
});

for (const backend of testBackends()) {
  describe(`checkout first view (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend });
    });
    after(() => server.close());

    it("gives every view its own nonce and form token, and each token pays", async () => {
      const reference = await createLink(server, { themeKey: server.themeKey });
      const views = await Promise.all([1, 2, 3].map(() => getPage(server.baseUrl, `/pay/${reference}`)));
      const nonces = views.map((view) => nonceOf(view.headers));
      const tokens = views.map((view) => hiddenInputs(view.html).csrfToken);
      assert.equal(new Set(nonces).size, 3, "a nonce per response");
      assert.equal(new Set(tokens).size, 3, "a form token per response");
      views.forEach((view, i) => {
        assert.ok(nonces[i] && view.html.includes(`nonce="${nonces[i]}"`), "the page's style carries its own response's nonce");
        assert.ok(!/[nt][0-9a-f]{24}[nt]/.test(view.html), "no marker is left in the page");
      });
      // The view's own token is accepted: the second view pays.
      const paid = await postForm(server.baseUrl, reference, { ...hiddenInputs(views[1]!.html), ...cardFields() });
      assert.equal(paid.status, 200);
      assert.match(paid.html, /id="checkout-reference"/, "the receipt, not the form again");
    });

    const pageOf = async (reference: string, query = "") => (await getPage(server.baseUrl, `/pay/${reference}${query}`)).html;
    const update = async (reference: string, fields: Record<string, unknown>) => {
      const updated = await server.api("POST", "/api/v1/paymentlinks/update", { paymentLinkReference: reference, ...fields });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
    };
    const changeTheme = async (fields: Record<string, unknown>) => {
      const changed = await fetch(`${server.baseUrl}/admin/v1/merchants/${server.merchantId}/themes/${server.themeKey}`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify(fields),
      });
      assert.equal(changed.status, 200, await changed.text());
    };

    it("serves, after the first view, exactly the page a fresh rendering makes", async () => {
      const reference = await createLink(server, {
        themeKey: server.themeKey,
        amount: 5900,
        items: [{ name: `Peysa "<b>" & co`, quantity: 2, unitPrice: 3000, amountWithoutDiscount: 6000, amount: 5900 }],
        shopperInfo: [{ field: "EmailAddress", requirementType: "Required" }],
      });
      for (const lang of ["is", "en"] as const) {
        await getPage(server.baseUrl, `/pay/${reference}?lang=${lang}`);
        const kept = await getPage(server.baseUrl, `/pay/${reference}?lang=${lang}`);
        const nonce = nonceOf(kept.headers)!;
        const formToken = hiddenInputs(kept.html).csrfToken!;
        const link = (await loadCheckoutLink(server.db, reference, { kind: "link" }))!;
        const fresh = renderDocument(
          h(CheckoutPage, {
            lang,
            nonce,
            theme: pageTheme(link),
            link: { reference, terms: link.terms, session: null },
            formToken,
            values: {},
            errors: [],
            switchHref: `/pay/${reference}?lang=${lang === "is" ? "en" : "is"}`,
          }) as VNode,
        );
        assert.equal(kept.html, fresh, lang);
      }
    });

    it("shows a change of one thing alone: an item's name, a shopper field, the theme's colour", async () => {
      const item = { quantity: 1, unitPrice: 1000, amountWithoutDiscount: 1000, amount: 1000 };
      const reference = await createLink(server, { themeKey: server.themeKey, amount: 1000, items: [{ name: "Húfa", ...item }] });
      assert.ok(textOf(await pageOf(reference)).includes("Húfa"));
      await update(reference, { items: [{ name: "Trefill", ...item }] });
      const renamed = textOf(await pageOf(reference));
      assert.ok(renamed.includes("Trefill") && !renamed.includes("Húfa"), renamed);

      assert.doesNotMatch(await pageOf(reference), /name="Telephone"/);
      await update(reference, { shopperInfo: [{ field: "Telephone", requirementType: "Required" }] });
      assert.match(await pageOf(reference), /name="Telephone"/);

      await changeTheme({ primaryColor: "#7a1f5c" });
      assert.match(await pageOf(reference), /--brand:#7a1f5c/);
    });

    it("shows an updated link's new terms at once", async () => {
      const reference = await createLink(server, {
        amount: 1000,
        items: [{ name: "Ullarsokkar", quantity: 1, unitPrice: 1000, amountWithoutDiscount: 1000, amount: 1000 }],
      });
      assert.ok(textOf((await getPage(server.baseUrl, `/pay/${reference}`)).html).includes("Ullarsokkar"));
      const updated = await server.api("POST", "/api/v1/paymentlinks/update", {
        paymentLinkReference: reference,
        amount: 2500,
        items: [{ name: "Vettlingar", quantity: 1, unitPrice: 2500, amountWithoutDiscount: 2500, amount: 2500 }],
      });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      const text = textOf((await getPage(server.baseUrl, `/pay/${reference}`)).html);
      assert.ok(text.includes("Vettlingar") && text.includes("25 kr."), text);
      assert.ok(!text.includes("Ullarsokkar"), text);
    });

    it("shows a changed theme and the other language as their own pages", async () => {
      const reference = await createLink(server, { themeKey: server.themeKey });
      const before = await getPage(server.baseUrl, `/pay/${reference}`);
      await changeTheme({ name: "Nýtt nafn", primaryColor: "#0a7d33" });
      const after = await getPage(server.baseUrl, `/pay/${reference}`);
      assert.ok(!before.html.includes("--brand:#0a7d33") && after.html.includes("--brand:#0a7d33"));
      assert.ok(textOf(after.html).includes("Nýtt nafn"));
      const english = await getPage(server.baseUrl, `/pay/${reference}?lang=en`);
      assert.equal(english.status, 200);
      assert.match(english.html, /<html lang="en"/);
      assert.match(after.html, /<html lang="is"/);
    });
  });
}
