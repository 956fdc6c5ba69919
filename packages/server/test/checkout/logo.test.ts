// Theme logos (docs/checkout.md#themes: the theme's logo on the checkout page, with no third-party request):
// the admin API takes a data: image or an https URL that Paylink downloads once; the page shows
// Paylink's own copy from its own origin. On PGlite and PostgreSQL, real HTTP throughout.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { testBackends } from "../support/databases.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { createLink } from "../support/shopper.ts";

const PNG_1X1 = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");
const GIF_BYTES = Buffer.concat([Buffer.from("GIF89a", "latin1"), Buffer.alloc(20, 1)]);

/** A little image host on localhost: each path answers what the test put there. */
async function startImageHost(routes: Record<string, { status: number; type?: string; body?: Buffer; headers?: Record<string, string> }>) {
  const server: Server = createServer((request, response) => {
    const route = routes[request.url ?? ""];
    if (!route) {
      response.writeHead(404).end("nope");
      return;
    }
    response.writeHead(route.status, { ...(route.type ? { "content-type": route.type } : {}), ...route.headers });
    response.end(route.body ?? "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

for (const backend of testBackends()) {
  describe(`theme logos (${backend.name})`, () => {
    let server: TestServer;
    let guarded: TestServer;
    let host: Awaited<ReturnType<typeof startImageHost>>;
    before(async () => {
      server = await startTestServer({ backend, allowPrivateTargets: true });
      guarded = await startTestServer({ backend });
      host = await startImageHost({
        "/logo.gif": { status: 200, type: "image/gif", body: GIF_BYTES },
        "/lying.png": { status: 200, type: "image/png", body: Buffer.from("<html>not an image</html>") },
        "/moved.png": { status: 302, headers: { location: "/logo.gif" } },
        "/huge.png": { status: 200, type: "image/png", body: Buffer.concat([PNG_1X1.subarray(0, 8), Buffer.alloc(70 * 1024)]) },
      });
    });
    after(async () => {
      await host?.close();
      await server?.close();
      await guarded?.close();
    });

    async function admin(target: TestServer, path: string, body: unknown) {
      const response = await fetch(`${target.baseUrl}/admin/v1${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${target.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    }

    const linkWithTheme = (themeKey: string) => createLink(server, { amount: 100, currency: "EUR", items: [], themeKey, culture: "en" });

    /** The page's <img> src, fetched from the page's own origin. */
    async function logoOnPage(reference: string) {
      const html = await (await fetch(`${server.baseUrl}/pay/${reference}`)).text();
      const src = /<img src="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&");
      return { html, src };
    }

    it("an uploaded data: PNG is stored and served from Paylink's origin, cacheable for a year", async () => {
      const created = await admin(server, `/merchants/${server.merchantId}/themes`, {
        name: "Prjónabúð",
        logoUrl: `data:image/png;base64,${PNG_1X1.toString("base64")}`,
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const { html, src } = await logoOnPage(await linkWithTheme(created.body.themeKey));
      assert.ok(src, "the page shows the logo");
      assert.match(src!, /^\/pay\/assets\/logos\/thm_[\w-]+\?v=[0-9a-f]{16}$/);
      assert.doesNotMatch(html, /data:image/, "not inlined into the page");
      assert.ok(html.includes('alt="Prjónabúð"'));

      const image = await fetch(`${server.baseUrl}${src}`);
      assert.equal(image.status, 200);
      assert.equal(image.headers.get("content-type"), "image/png");
      assert.match(image.headers.get("cache-control") ?? "", /max-age=31536000/);
      assert.deepEqual(Buffer.from(await image.arrayBuffer()), PNG_1X1);
      const unversioned = await fetch(`${server.baseUrl}${src!.split("?")[0]}`);
      assert.equal(unversioned.status, 200);
      assert.doesNotMatch(unversioned.headers.get("cache-control") ?? "", /31536000/, "only the versioned URL is immutable");
    });

    it("an image URL is downloaded once; the image type comes from the bytes", async () => {
      const created = await admin(server, `/merchants/${server.merchantId}/themes`, { name: "Host", logoUrl: host.url("/logo.gif") });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(created.body.logoUrl, host.url("/logo.gif"));
      const { src } = await logoOnPage(await linkWithTheme(created.body.themeKey));
      const image = await fetch(`${server.baseUrl}${src}`);
      assert.equal(image.headers.get("content-type"), "image/gif");
      assert.deepEqual(Buffer.from(await image.arrayBuffer()), GIF_BYTES);
    });

    for (const [name, logoUrl, code, pattern] of [
      ["an SVG data: URL", "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=", "2008", /data:image/],
      [
        "a data: URL whose bytes are not an image",
        `data:image/png;base64,${Buffer.from("hello").toString("base64")}`,
        "2008",
        /not a PNG, JPEG, GIF or WebP/,
      ],
      [
        "a data: image over 64 KB",
        `data:image/png;base64,${Buffer.concat([PNG_1X1.subarray(0, 8), Buffer.alloc(70 * 1024)]).toString("base64")}`,
        "2009",
        /64 KB/,
      ],
      ["an URL that answers 404", "/missing.png", "2008", /answered 404/],
      ["an URL that redirects", "/moved.png", "2008", /redirects are not followed/],
      ["an URL whose body is not an image", "/lying.png", "2008", /not a PNG, JPEG, GIF or WebP/],
      ["an URL with an image over 64 KB", "/huge.png", "2009", /64 KB/],
    ] as const) {
      it(`refuses ${name} with ${code}, creating no theme`, async () => {
        const url = logoUrl.startsWith("/") ? host.url(logoUrl) : logoUrl;
        const before = await server.db
          .selectFrom("themes")
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .executeTakeFirstOrThrow();
        const refused = await admin(server, `/merchants/${server.merchantId}/themes`, { name: "Bad", logoUrl: url });
        assert.equal(refused.status, 400, JSON.stringify(refused.body));
        assert.equal(refused.body.errorCode, code);
        assert.match(refused.body.errorMessage, pattern);
        const afterCount = await server.db
          .selectFrom("themes")
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .executeTakeFirstOrThrow();
        assert.equal(Number(afterCount.n), Number(before.n));
      });
    }

    it("refuses to download from a private address unless the operator allows it (SSRF guard)", async () => {
      const inside = host.url("/logo.gif").replace("http://", "https://");
      const refused = await admin(guarded, `/merchants/${guarded.merchantId}/themes`, { name: "Inside", logoUrl: inside });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.errorCode, "2008");
      assert.match(refused.body.errorMessage, /could not be downloaded: .*127\.0\.0\.1/);
      const plain = await admin(guarded, `/merchants/${guarded.merchantId}/themes`, {
        name: "Plain",
        logoUrl: "http://logo.example/x.png",
      });
      assert.equal(plain.body.errorCode, "2008");
      assert.match(plain.body.errorMessage, /https:\/\//, "http:// only where private targets are allowed");
    });

    it("answers 404 for a theme without a stored logo", async () => {
      assert.equal((await fetch(`${server.baseUrl}/pay/assets/logos/${server.themeKey}`)).status, 404);
      assert.equal((await fetch(`${server.baseUrl}/pay/assets/logos/thm_nope`)).status, 404);
    });
  });
}
