// GET /pay/{reference} (docs/checkout.md): the page itself, visits, status pages, language, escaping of
// merchant text, security headers, size, QR code.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import QRCode from "qrcode";
import { CHECKOUT_CSS } from "../../src/checkout/assets.ts";
import { createTheme } from "../../src/db/merchants-repository.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { CARDS, cardFields, createLink, getPage, hiddenInputs, pay, postForm, textOf } from "../support/shopper.ts";

const DESCRIPTION = "INTERNAL-NOTE margin 40% do-not-show";

for (const backend of testBackends()) {
  describe(`checkout page (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backend });
    });
    after(() => server.close());

    const readLink = async (reference: string) => (await server.api("GET", `/api/v1/paymentlinks/${reference}`)).body.paymentLink;
    const submissionsOf = async (reference: string) => (await readLink(reference)).submissions as unknown[];

    it("renders items, total, shopper fields, card fields with labels and autocomplete, and the pay button", async () => {
      const reference = await createLink(server, {
        amount: 59800,
        themeKey: server.themeKey,
        description: DESCRIPTION,
        items: [
          { name: "Lopapeysa", quantity: 1, unitPrice: 48900, amountWithoutDiscount: 48900, amount: 48900 },
          { name: "Húfa", quantity: 2, unitPrice: 6000, amountWithoutDiscount: 12000, amount: 10900 },
        ],
        shopperInfo: [
          { field: "FullName", requirementType: "Required" },
          { field: "EmailAddress", requirementType: "Required" },
          { field: "Address", requirementType: "Optional" },
          { field: "PostCode", requirementType: "Optional" },
          { field: "City", requirementType: "Optional" },
          { field: "Country", requirementType: "Optional" },
          { field: "Telephone", requirementType: "Optional" },
          { field: "Ssn", requirementType: "Optional" },
          { field: "Comments", requirementType: "Optional" },
        ],
      });
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      assert.equal(page.status, 200);
      assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
      const text = textOf(page.html);
      for (const expected of [
        "Yfirlit pöntunar",
        "Lopapeysa",
        "1 × 489 kr.",
        "Húfa",
        "2 × 60 kr.",
        "Afsláttur −11 kr.",
        "120 kr.",
        "109 kr.",
        "Samtals 598 kr.",
        "Test shop",
      ]) {
        assert.ok(text.includes(expected), `${expected} in ${text}`);
      }
      assert.match(page.html, /<button type="submit" class="pay"[^>]*>Greiða 598 kr\.<\/button>/);
      assert.match(page.html, /<form method="post" action="\/pay\/[A-Za-z0-9]+" novalidate/);
      assert.match(page.html, /--brand:#123456/);

      const autocomplete: Record<string, string> = {
        cardNumber: "cc-number",
        cardExpiry: "cc-exp",
        cardCvc: "cc-csc",
        cardHolder: "cc-name",
        FullName: "name",
        EmailAddress: "email",
        Address: "address-line1",
        PostCode: "postal-code",
        City: "address-level2",
        Country: "country-name",
        Telephone: "tel",
      };
      for (const [name, token] of Object.entries(autocomplete)) {
        const input = new RegExp(`<input id="${name}" name="${name}"[^>]*>`).exec(page.html)?.[0];
        assert.ok(input, `input ${name}`);
        assert.match(input!, new RegExp(`autocomplete="${token}"`), name);
        assert.match(page.html, new RegExp(`<label for="${name}">`), `label for ${name}`);
      }
      assert.match(page.html, /<input id="EmailAddress" name="EmailAddress" type="email"/);
      assert.match(page.html, /<input id="Telephone" name="Telephone" type="tel"/);
      assert.match(page.html, /<textarea id="Comments" name="Comments"/);
      assert.match(page.html, /<input id="cardNumber"[^>]*inputmode="numeric"/);
      assert.match(page.html, /<input id="FullName"[^>]*required/);
      assert.match(page.html, /<label for="Address">Heimilisfang<span class="opt"> \(valfrjálst\)<\/span><\/label>/);
      assert.deepEqual(Object.keys(hiddenInputs(page.html)).sort(), ["csrfToken", "lang"]);
    });

    it("never shows the merchant's description, on any page", async () => {
      const reference = await createLink(server, { description: DESCRIPTION, exactSalesCount: 1 });
      const pages = [await getPage(server.baseUrl, `/pay/${reference}`)];
      pages.push(await pay(server.baseUrl, reference, cardFields(CARDS.refused)));
      pages.push(await pay(server.baseUrl, reference, { cardNumber: "1" }));
      pages.push(await pay(server.baseUrl, reference, cardFields(CARDS.visa)));
      pages.push(await getPage(server.baseUrl, `/pay/${reference}`));
      assert.deepEqual(
        pages.map((p) => p.status),
        [200, 402, 422, 200, 410],
      );
      for (const page of pages) assert.ok(!page.html.includes("INTERNAL-NOTE"), page.html);
    });

    it("escapes merchant-supplied text: item names, theme name, prefilled values", async () => {
      const theme = await createTheme(server.database.db, server.merchantId, {
        name: `Búð <img src=x onerror="alert(1)">`,
        primaryColor: "#0a7d33",
        logoUrl: null,
      });
      const reference = await createLink(server, {
        themeKey: theme.themeKey,
        items: [
          {
            name: `<script>alert("item")</script> & "quotes" 'single'`,
            quantity: 1,
            unitPrice: 48900,
            amountWithoutDiscount: 48900,
            amount: 48900,
          },
        ],
        shopperInfo: [{ field: "FullName", requirementType: "Prefilled", prefilledValue: `"><script>alert('prefilled')</script>` }],
      });
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      assert.equal(page.status, 200);
      assert.ok(!page.html.includes("<script>alert"), "no injected script element");
      assert.ok(!page.html.includes("<img src=x"), "no injected image");
      assert.ok(page.html.includes("&lt;script>alert(&quot;item&quot;)&lt;/script> &amp; &quot;quotes&quot; 'single'"));
      assert.ok(page.html.includes(`value="&quot;>&lt;script>alert('prefilled')&lt;/script>"`));
      assert.ok(textOf(page.html).includes(`Búð <img src=x onerror="alert(1)">`), "shown as text");
      // The only <script> on the page is the helper file.
      assert.deepEqual(page.html.match(/<script[^>]*>/g), [
        `<script src="/pay/assets/checkout.js?v=${/checkout\.js\?v=([0-9a-f]+)/.exec(page.html)![1]}" defer>`,
      ]);
      // A re-rendered form escapes what the shopper typed, too.
      const posted = await postForm(server.baseUrl, reference, { ...hiddenInputs(page.html), cardHolder: `"><script>alert(3)</script>` });
      assert.equal(posted.status, 422);
      assert.ok(!posted.html.includes("<script>alert(3)"));
    });

    it("a return URL host that could break out of form-action never reaches the CSP, even if stored before the host rule", async () => {
      const reference = await createLink(server, { returnUrl: "https://shop.example/done" });
      // As a link saved before returnUrl hosts were checked could hold it.
      await sql`UPDATE payment_links SET return_url = ${"https://shop.example;script-src*/x"} WHERE reference = ${reference}`.execute(
        server.db,
      );
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      assert.equal(page.status, 200);
      const csp = page.headers.get("content-security-policy")!;
      assert.ok(!csp.includes("script-src*"), csp);
      assert.match(csp, /form-action 'self';/);
    });

    it("sends security headers: CSP without inline script, no framing, no referrer to other sites", async () => {
      const reference = await createLink(server, { returnUrl: "https://shop.example/done" });
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      const csp = page.headers.get("content-security-policy")!;
      const directives = new Map(
        csp
          .split(";")
          .map((d) => d.trim().split(/\s+/))
          .map(([name, ...values]) => [name!, values]),
      );
      assert.deepEqual(directives.get("default-src"), ["'none'"]);
      assert.deepEqual(directives.get("script-src"), ["'self'"]);
      const nonce = /<style nonce="([^"]+)">/.exec(page.html)![1];
      assert.deepEqual(directives.get("style-src"), ["'self'", `'nonce-${nonce}'`]);
      assert.deepEqual(directives.get("frame-ancestors"), ["'none'"]);
      assert.deepEqual(directives.get("form-action"), ["'self'", "https://shop.example"]);
      assert.deepEqual(directives.get("base-uri"), ["'none'"]);
      assert.ok(!csp.includes("unsafe-inline") && !csp.includes("unsafe-eval"));
      assert.equal(page.headers.get("x-frame-options"), "DENY");
      assert.equal(page.headers.get("referrer-policy"), "same-origin");
      assert.equal(page.headers.get("x-content-type-options"), "nosniff");
      assert.equal(page.headers.get("cache-control"), "no-store");
      // No inline event handlers or inline scripts anywhere.
      assert.doesNotMatch(page.html, /\son[a-z]+=/i);
      assert.doesNotMatch(page.html, /<script(?![^>]*\ssrc=)[^>]*>/);
      // A fresh nonce per response.
      const again = await getPage(server.baseUrl, `/pay/${reference}`);
      assert.notEqual(/<style nonce="([^"]+)">/.exec(again.html)![1], nonce);
      // The helper script is served from the plugin with the same headers.
      const script = await getPage(server.baseUrl, /src="([^"]+)"/.exec(page.html.slice(page.html.indexOf("<script")))![1]!);
      assert.equal(script.status, 200);
      assert.equal(script.headers.get("content-type"), "text/javascript; charset=utf-8");
      assert.equal(script.headers.get("x-content-type-options"), "nosniff");
      // So is the stylesheet, under a versioned URL cached for good; the page inlines only the theme's colours.
      const stylesheet = /<link rel="stylesheet" href="(\/pay\/assets\/checkout\.css\?v=[0-9a-f]{12})"/.exec(page.html)![1]!;
      const css = await getPage(server.baseUrl, stylesheet);
      assert.equal(css.status, 200);
      assert.equal(css.headers.get("content-type"), "text/css; charset=utf-8");
      assert.equal(css.headers.get("cache-control"), "public, max-age=31536000, immutable");
      assert.equal(css.headers.get("x-content-type-options"), "nosniff");
      assert.equal(css.html, CHECKOUT_CSS);
      const inline = [...page.html.matchAll(/<style nonce="[^"]+">([^<]*)<\/style>/g)].map((m) => m[1]!);
      assert.deepEqual(inline, [inline[0]!]);
      assert.match(inline[0]!, /^:root\{--brand:#[0-9a-f]{6};--on-brand:#[0-9a-f]{6};--accent:#[0-9a-f]{6}\}$/);
    });

    it("stays small (< 50 KB) and makes no third-party request", async () => {
      const reference = await createLink(server, {
        themeKey: server.themeKey,
        amount: 1500000,
        items: Array.from({ length: 10 }, (_, i) => ({
          name: `Vara númer ${i + 1} með nokkuð löngu nafni`,
          quantity: 3,
          unitPrice: 50000,
          amountWithoutDiscount: 150000,
          amount: 150000,
        })),
        shopperInfo: ["FullName", "EmailAddress", "Address", "PostCode", "City", "Country", "Telephone", "Ssn", "Comments"].map(
          (field) => ({ field, requirementType: "Required" }),
        ),
      });
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      const bytes = Buffer.byteLength(page.html);
      assert.ok(bytes < 50 * 1024, `${bytes} bytes`);
      console.log(`checkout page with 10 items and 9 shopper fields: ${(bytes / 1024).toFixed(1)} KB`);
      const urls = [...page.html.matchAll(/\s(?:src|href|action)="([^"]*)"/g)].map((m) => m[1]!);
      assert.ok(urls.length >= 3);
      // Same-origin paths only; the empty data: favicon stops the browser asking for /favicon.ico.
      for (const url of urls) assert.match(url, /^(\/(?!\/)|data:,$)/, `same-origin URL: ${url}`);
      assert.doesNotMatch(page.html, /https?:\/\//);
      assert.doesNotMatch(page.html, /@import|url\(/);
    });

    it("counts every view as one visit, whatever the status; posts, HEAD requests and QR codes are not visits", async () => {
      const reference = await createLink(server, { exactSalesCount: 1 });
      for (let i = 0; i < 3; i++) assert.equal((await getPage(server.baseUrl, `/pay/${reference}`)).status, 200);
      await getPage(server.baseUrl, `/pay/${reference}/qr.svg`);
      assert.equal((await fetch(`${server.baseUrl}/pay/${reference}`, { method: "HEAD" })).status, 200);
      assert.equal((await readLink(reference)).visitCount, 3);
      await pay(server.baseUrl, reference, cardFields(CARDS.visa));
      assert.equal((await readLink(reference)).visitCount, 4);
      assert.equal((await getPage(server.baseUrl, `/pay/${reference}`)).status, 410);
      assert.equal((await getPage(server.baseUrl, `/pay/${reference}`)).status, 410);
      assert.equal((await readLink(reference)).visitCount, 6);
      // Concurrent views are all counted (atomic increment, no lost update).
      await Promise.all(Array.from({ length: 10 }, () => getPage(server.baseUrl, `/pay/${reference}`)));
      assert.equal((await readLink(reference)).visitCount, 16);
    });

    describe("links that cannot take a payment: 410 page, and a post records nothing", () => {
      const cases: Array<{ status: string; prepare: () => Promise<{ reference: string; tokenFrom: string }>; title: string }> = [
        {
          status: "Expired",
          title: "This payment link has expired",
          prepare: async () => {
            const reference = await createLink(server, { culture: "en", expiresAt: new Date(Date.now() + 60_000).toISOString() });
            const page = await getPage(server.baseUrl, `/pay/${reference}`);
            await server.database.db
              .updateTable("payment_links")
              .set({ valid_until: new Date(Date.now() - 1000) })
              .where("reference", "=", reference)
              .execute();
            return { reference, tokenFrom: page.html };
          },
        },
        {
          status: "Used",
          title: "Sold out",
          prepare: async () => {
            const reference = await createLink(server, { culture: "en", exactSalesCount: 1 });
            const page = await getPage(server.baseUrl, `/pay/${reference}`);
            assert.equal((await pay(server.baseUrl, reference)).status, 200);
            return { reference, tokenFrom: page.html };
          },
        },
        {
          status: "Disabled",
          title: "This payment link is no longer available",
          prepare: async () => {
            const reference = await createLink(server, { culture: "en" });
            const page = await getPage(server.baseUrl, `/pay/${reference}`);
            assert.equal((await server.api("POST", "/api/v1/paymentlinks/disable", { paymentLinkReference: reference })).status, 200);
            return { reference, tokenFrom: page.html };
          },
        },
        {
          status: "Completed",
          title: "This card has already been saved",
          prepare: async () => {
            const reference = await createLink(server, { type: "TokenizeByLink", amount: 0, items: [], culture: "en" });
            const page = await getPage(server.baseUrl, `/pay/${reference}`);
            // A page that saves the card says so, and not also that the card is never stored.
            assert.match(textOf(page.html), /Only the card's processor keeps your card/);
            assert.doesNotMatch(textOf(page.html), /never stored/);
            assert.equal((await pay(server.baseUrl, reference)).status, 200);
            return { reference, tokenFrom: page.html };
          },
        },
      ];
      for (const { status, prepare, title } of cases) {
        it(status, async () => {
          const { reference, tokenFrom } = await prepare();
          assert.equal((await readLink(reference)).status, status);
          const page = await getPage(server.baseUrl, `/pay/${reference}`);
          assert.equal(page.status, 410);
          assert.ok(textOf(page.html).includes(title), textOf(page.html));
          assert.doesNotMatch(page.html, /<form/);
          assert.equal(page.headers.get("cache-control"), "no-store");
          const before = (await submissionsOf(reference)).length;
          const post = await postForm(server.baseUrl, reference, { ...hiddenInputs(tokenFrom), ...cardFields(CARDS.visa) });
          assert.equal(post.status, 410);
          assert.ok(textOf(post.html).includes(title));
          assert.equal((await submissionsOf(reference)).length, before);
          // And in Icelandic.
          const icelandic = await getPage(server.baseUrl, `/pay/${reference}?lang=is`);
          assert.equal(icelandic.status, 410);
          assert.match(icelandic.html, /<html lang="is">/);
        });
      }
    });

    it("unknown links get a 404 page, and nothing of the request is reflected", async () => {
      const english = await getPage(server.baseUrl, "/pay/NoSuchLink123", { "accept-language": "en-GB,en;q=0.9" });
      assert.equal(english.status, 404);
      assert.equal(english.headers.get("content-type"), "text/html; charset=utf-8");
      assert.ok(textOf(english.html).includes("Payment link not found"));
      const icelandic = await getPage(server.baseUrl, "/pay/NoSuchLink123", { "accept-language": "is-IS,is;q=0.9" });
      assert.ok(textOf(icelandic.html).includes("Greiðsluhlekkur fannst ekki"));
      const weird = await getPage(server.baseUrl, "/pay/%3Cscript%3Ealert(1)%3C%2Fscript%3E");
      assert.equal(weird.status, 404);
      assert.ok(!weird.html.includes("<script>alert"));
      const deeper = await getPage(server.baseUrl, "/pay/abc/def/ghi");
      assert.equal(deeper.status, 404);
      assert.match(deeper.headers.get("content-type")!, /text\/html/);
      const posted = await postForm(server.baseUrl, "NoSuchLink123", cardFields());
      assert.equal(posted.status, 404);
    });

    it("speaks the link's culture, switches with ?lang= and remembers the choice in a cookie", async () => {
      const reference = await createLink(server, { culture: "en" });
      const english = await getPage(server.baseUrl, `/pay/${reference}`);
      assert.match(english.html, /<html lang="en">/);
      assert.ok(textOf(english.html).includes("Order summary"));
      assert.match(english.html, />Pay ISK 489<\/button>/);
      assert.match(english.html, /<a class="lang" href="\/pay\/[A-Za-z0-9]+\?lang=is" hreflang="is" lang="is">Íslenska<\/a>/);
      assert.equal(english.headers.get("set-cookie"), null);

      const switched = await getPage(server.baseUrl, `/pay/${reference}?lang=is`);
      assert.match(switched.html, /<html lang="is">/);
      assert.match(switched.html, />Greiða 489 kr\.<\/button>/);
      const cookie = switched.headers.get("set-cookie")!;
      const [pair, ...attributes] = cookie.split("; ");
      assert.equal(pair, "paylink_lang=is");
      assert.deepEqual(attributes.sort(), ["HttpOnly", "Max-Age=31536000", "Path=/pay", "SameSite=Lax"]);

      const remembered = await getPage(server.baseUrl, `/pay/${reference}`, { cookie: "paylink_lang=is" });
      assert.match(remembered.html, /<html lang="is">/);
      // The posted form keeps the page's language for messages.
      const invalid = await postForm(server.baseUrl, reference, { ...hiddenInputs(english.html), cardNumber: "" });
      assert.equal(invalid.status, 422);
      assert.ok(textOf(invalid.html).includes("Enter your card number."));
      const invalidIs = await postForm(server.baseUrl, reference, { ...hiddenInputs(remembered.html), cardNumber: "" });
      assert.ok(textOf(invalidIs.html).includes("Sláðu inn kortanúmer."));
      // Amounts follow the language; other currencies keep their decimals.
      const euro = await createLink(server, {
        currency: "EUR",
        amount: 1250,
        items: [{ name: "Kaffi", quantity: 1, unitPrice: 1250, amountWithoutDiscount: 1250, amount: 1250 }],
      });
      assert.match((await getPage(server.baseUrl, `/pay/${euro}`)).html, />Greiða 12,50 EUR<\/button>/);
      assert.match((await getPage(server.baseUrl, `/pay/${euro}?lang=en`)).html, />Pay EUR 12.50<\/button>/);
    });

    it("serves a QR code of the link URL as SVG", async () => {
      const reference = await createLink(server);
      const response = await fetch(`${server.baseUrl}/pay/${reference}/qr.svg`);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "image/svg+xml; charset=utf-8");
      const svg = await response.text();
      assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      assert.match(svg, /<path/);
      const expected = await QRCode.toString(`${server.baseUrl}/pay/${reference}`, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
      assert.equal(svg, expected, "encodes the link URL");
      assert.equal((await fetch(`${server.baseUrl}/pay/NoSuchLink123/qr.svg`)).status, 404);
    });

    it("the JSON API still refuses form bodies with 415", async () => {
      const response = await fetch(`${server.baseUrl}/api/v1/paymentlinks/create`, {
        method: "POST",
        headers: { "x-api-key": server.apiKey, "content-type": "application/x-www-form-urlencoded" },
        body: "type=PayByLink",
      });
      assert.equal(response.status, 415);
      assert.equal((await response.json()).errorCode, "3006");
    });
  });
}
