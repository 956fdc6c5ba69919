// The portal's theme form over real HTTP on both databases: a theme made with a colour can lose it
// again (the checkout then uses Paylink's default colour) and get one back; a colour that cannot be
// read is refused beside its field.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { findTheme } from "../../src/db/merchants-repository.ts";
import { DEFAULT_THEME } from "../../src/web/theme.ts";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { type PortalClient, signedIn } from "../support/portal.ts";
import { createLink } from "../support/shopper.ts";

for (const backend of testBackends()) {
  describe(`portal themes (${backend.name})`, () => {
    let server: TestServer;
    let portal: PortalClient;
    before(async () => {
      server = await startTestServer({ backend });
      portal = await signedIn(server);
    });
    after(() => server?.close());

    test("a theme's colour is cleared with the default-colour box, and set again by choosing one", async () => {
      const form = await portal.get("/portal/themes");
      const created = await portal.post("/portal/themes", { name: "Ullarbúðin", primaryColor: "#7a1f5c" }, form);
      assert.equal(created.status, 303, created.text.slice(0, 300));
      const themeKey = /\/portal\/themes\/([^?]+)\?saved=1/.exec(created.location ?? "")![1]!;
      assert.equal((await findTheme(server.db, server.merchantId, themeKey))?.primaryColor, "#7a1f5c");
      const path = `/portal/themes/${themeKey}`;
      let page = await portal.get(path);
      assert.doesNotMatch(page.html, /name="defaultColour" value="1" checked/, "a theme with a colour: the box is not ticked");

      const cleared = await portal.post(path, { name: "Ullarbúðin", primaryColor: "#7a1f5c", defaultColour: "1" }, page);
      assert.equal(cleared.status, 303, cleared.text.slice(0, 300));
      assert.equal((await findTheme(server.db, server.merchantId, themeKey))?.primaryColor, null, "the colour is gone");
      page = await portal.get(path);
      assert.match(page.html, /name="defaultColour" value="1" checked/, "the box shows the theme has no colour");
      assert.match(page.html, new RegExp(`--brand:${DEFAULT_THEME.brand}`), "the preview shows the default colour");
      const reference = await createLink(server, { themeKey });
      const checkout = await (await fetch(`${server.baseUrl}/pay/${reference}`)).text();
      assert.match(checkout, new RegExp(`--brand:${DEFAULT_THEME.brand}`), "the checkout uses Paylink's colour");
      assert.doesNotMatch(checkout, /#7a1f5c/);

      const again = await portal.post(path, { name: "Ullarbúðin", primaryColor: "#0f766e" }, page);
      assert.equal(again.status, 303);
      assert.equal((await findTheme(server.db, server.merchantId, themeKey))?.primaryColor, "#0f766e");

      const broken = await portal.post(path, { name: "Ullarbúðin", primaryColor: "teal", csrf: await portal.csrf() });
      assert.equal(broken.status, 400);
      assert.match(broken.text, /Choose a colour such as #0f766e/);
      assert.equal((await findTheme(server.db, server.merchantId, themeKey))?.primaryColor, "#0f766e", "nothing changed");
    });

    test("a new theme can be made without a colour of its own", async () => {
      const form = await portal.get("/portal/themes");
      const created = await portal.post("/portal/themes", { name: "Plain", primaryColor: "#000000", defaultColour: "1" }, form);
      assert.equal(created.status, 303);
      const themeKey = /\/portal\/themes\/([^?]+)\?saved=1/.exec(created.location ?? "")![1]!;
      assert.equal((await findTheme(server.db, server.merchantId, themeKey))?.primaryColor, null);
    });
  });
}
