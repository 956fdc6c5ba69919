// On an Icelandic portal page, errors of the shared services (the one catalogue) are in Icelandic:
// link rules beside their fields, a refund of more than is left (2019), a reversal with nothing
// left, a logo and a webhook URL the services refuse. The same requests on an English page show
// the API's own message. Real HTTP, both databases.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { testBackends } from "../support/databases.ts";
import { getLink } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { type PortalClient, type PortalPage, signedIn } from "../support/portal.ts";
import { createLink, pay } from "../support/shopper.ts";

/** The problem shown beside field `id` of a form. */
const problemOf = (page: PortalPage, id: string) => new RegExp(`id="${id}-error">([^<]+)<`).exec(page.html)?.[1];

for (const backend of testBackends()) {
  describe(`portal errors in Icelandic (${backend.name})`, () => {
    let server: TestServer;
    let portal: PortalClient;
    before(async () => {
      server = await startTestServer({ backend });
      portal = await signedIn(server);
    });
    after(() => server?.close());

    async function inLanguage(lang: "is" | "en") {
      assert.equal((await portal.get(`/portal/overview?lang=${lang}`)).status, 200);
    }

    async function newLink(fields: Record<string, string>) {
      const form = await portal.get("/portal/links/new");
      const base = { type: "PayByLink", terminalIdentifier: server.terminalIdentifier, currency: "ISK", amount: "4890" };
      return portal.post("/portal/links/new", { ...base, ...fields }, form);
    }

    test("link rules: the API's rule, in Icelandic beside its field; in English the API's message", async () => {
      await inLanguage("is");
      const zero = await newLink({ amount: "0" });
      assert.equal(zero.status, 400);
      assert.equal(problemOf(zero, "amount"), "Upphæðin verður að vera hærri en 0.");
      const http = await newLink({ returnUrl: "http://shop.example/thanks" });
      assert.equal(http.status, 400);
      assert.equal(problemOf(http, "returnUrl"), "Slóðin verður að vera heil slóð sem byrjar á https://.");
      const past = await newLink({ expiresAt: "2001-01-01T12:00" });
      assert.equal(problemOf(past, "expiresAt"), "Tíminn er liðinn; veldu tíma í framtíðinni.");
      const currency = await newLink({ currency: "XYZ" });
      assert.equal(problemOf(currency, "currency"), "Paylink styður ekki þennan gjaldmiðil; notaðu ISO 4217-kóða, t.d. ISK eða EUR.");

      await inLanguage("en");
      const english = await newLink({ amount: "0" });
      assert.match(problemOf(english, "amount") ?? "", /^amount must be greater than 0/);
      const englishUrl = await newLink({ returnUrl: "http://shop.example/thanks" });
      assert.match(problemOf(englishUrl, "returnUrl") ?? "", /returnUrl .* must use https:\/\//);
    });

    test("amounts as each language writes them: 18.900 on an Icelandic page, 18,900 on an English one", async () => {
      const amountOf = async (created: Awaited<ReturnType<typeof newLink>>) => {
        assert.equal(created.status, 303);
        const reference = created.location!.split("/").pop()!;
        const row = await server.db
          .selectFrom("payment_links")
          .select("amount")
          .where("reference", "=", reference)
          .executeTakeFirstOrThrow();
        return Number(row.amount);
      };
      await inLanguage("is");
      assert.equal(await amountOf(await newLink({ amount: "18.900" })), 1_890_000);
      assert.equal(problemOf(await newLink({ amount: "18,900" }), "amount"), "Sláðu inn upphæð, t.d. 4890 eða 12,50.");
      await inLanguage("en");
      assert.equal(await amountOf(await newLink({ amount: "18,900" })), 1_890_000);
      assert.equal(problemOf(await newLink({ amount: "18.900" }), "amount"), "Enter an amount such as 4890 or 12.50.");
    });

    test("refunds: more than is left (2019) and a reversal with nothing left (3003), in Icelandic", async () => {
      const reference = await createLink(server, { amount: 489000 });
      await pay(server.baseUrl, reference);
      const checkoutReference = (await getLink(server, reference)).submissions[0].checkoutReference as string;
      const path = `/portal/payments/${checkoutReference}`;
      await inLanguage("is");
      let page = await portal.get(path);
      const tooMuch = await portal.post(`${path}/refund`, { amount: "5000", attempt: randomUUID() }, page);
      assert.equal(tooMuch.status, 400);
      assert.match(tooMuch.text, /Upphæðin er hærri en það sem eftir er að endurgreiða af greiðslunni\./);
      assert.doesNotMatch(tooMuch.text, /more than what is left/, "no English on the Icelandic page");

      await inLanguage("en");
      page = await portal.get(path);
      const english = await portal.post(`${path}/refund`, { amount: "5000", attempt: randomUUID() }, page);
      assert.match(english.text, /Amount ISK 5,000 is more than what is left to refund of payment [A-Z0-9]+: ISK 4,890\./);

      assert.equal((await portal.post(`${path}/reverse`, { attempt: randomUUID() }, page)).status, 303);
      await inLanguage("is");
      const again = await portal.post(`${path}/reverse`, { attempt: randomUUID(), csrf: await portal.csrf() });
      assert.equal(again.status, 400);
      assert.match(again.text, /Ekkert er eftir til að bakfæra/);
    });

    test("a logo and a webhook URL the services refuse, in Icelandic", async () => {
      await inLanguage("is");
      const themes = await portal.get("/portal/themes");
      const logo = await portal.post(
        "/portal/themes",
        { name: "Merki", primaryColor: "#123456", logoUrl: "ftp://x.example/l.png" },
        themes,
      );
      assert.equal(logo.status, 400);
      assert.match(problemOf(logo, "logoUrl") ?? "", /^Merkið verður að vera https:\/\/-slóð/);
      const nameless = await portal.post("/portal/themes", { name: "", primaryColor: "#123456" }, themes);
      assert.equal(problemOf(nameless, "name"), "Sláðu inn heiti, 1 til 100 stafi.");

      const developers = await portal.get("/portal/developers");
      const hook = await portal.post("/portal/developers/webhooks", { url: "https://127.0.0.1/hook" }, developers);
      assert.equal(hook.status, 400);
      assert.match(hook.text, /Slóðin verður að vera https:\/\/-slóð á netþjóni sem er opinn á netinu\./);
    });
  });
}
