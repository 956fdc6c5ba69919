// The embedded database's files becoming unreadable under a running instance, for real: the
// server runs on PGlite in a data directory, and the test takes the files away from it in two
// ways the kernel itself refuses — the relation files' directory moved away (ENOENT), and the data
// directory denied to the process (EACCES: mode 000 when the test is not root; as root, which
// reads through any mode, the process's effective user becomes `nobody` for the outage, so the
// kernel checks the 0700 directory against a user that may not enter it). Every answer meanwhile
// is 503 with Retry-After — 5003 on the API, the calm page on checkout and portal — with nothing
// internal in any body; once the files are back everything works again without a restart.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { openDatabase } from "../../src/db/connect.ts";
import { isDatabaseUnavailable } from "../../src/db/unavailable.ts";
import type { TestBackend } from "../support/databases.ts";
import { assertEnvelope, payByLink } from "../support/fixtures.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { signedIn } from "../support/portal.ts";
import { cardFields, createLink } from "../support/shopper.ts";

const INTERNAL = /ENOENT|EACCES|could not|base\/|FST_|pg_|postgres|SQL|stack|statusCode|at \w+ \(/i;
const NOBODY = 65534;

async function assertCalm503(response: Response, what: string): Promise<void> {
  const text = await response.text();
  assert.equal(response.status, 503, `${what}: ${response.status} ${text.slice(0, 300)}`);
  assert.ok(Number(response.headers.get("retry-after")) >= 1, `${what}: Retry-After ${response.headers.get("retry-after")}`);
  assert.doesNotMatch(text, INTERNAL, what);
  if (response.headers.get("content-type")?.startsWith("application/json")) {
    const body = JSON.parse(text);
    assert.equal(body.errorCode, "5003", what);
    assertEnvelope(body);
  } else {
    assert.match(text, /<html/i, what);
    assert.match(text, /try again|reyndu aftur/i, what);
  }
}

describe("the embedded database's files unreadable under a running instance (PGlite on disk)", () => {
  const parent = mkdtempSync(join(tmpdir(), "paylink-files-"));
  const dataDir = join(parent, "data");
  const onDisk: TestBackend = {
    name: "pglite",
    open: async () => {
      const handle = await openDatabase({ kind: "pglite", dataDir });
      return { ...handle, destroy: () => handle.close() };
    },
  };
  let server: TestServer;
  let reference: string;
  let cookie: string;
  before(async () => {
    const setup = await startTestServer({ backend: onDisk });
    reference = await createLink(setup);
    cookie = (await signedIn(setup)).cookieHeader();
    await setup.close();
  });
  after(() => rmSync(parent, { recursive: true, force: true }));

  // Each test starts an instance on the data written above, as after a restart: the kernel lets a
  // process go on reading a file it opened before the file was removed or denied, so the files are
  // taken away before the instance has opened those of the links, sessions and idempotency keys.
  // What it still holds in memory or open (its own merchant, written at start) it may keep serving.
  async function restarted() {
    server = await startTestServer({ backend: onDisk });
  }

  /** Every kind of request while the files are away: API read and write, checkout page and post, portal pages. */
  async function assertAllUnavailable(idempotencyKey: string) {
    const apiHeaders = { "x-api-key": server.apiKey, "content-type": "application/json" };
    await assertCalm503(await fetch(`${server.baseUrl}/api/v1/paymentlinks`, { headers: apiHeaders }), "list");
    await assertCalm503(await fetch(`${server.baseUrl}/api/v1/paymentlinks/${reference}`, { headers: apiHeaders }), "get");
    await assertCalm503(
      await fetch(`${server.baseUrl}/api/v1/paymentlinks/create`, {
        method: "POST",
        headers: { ...apiHeaders, "idempotency-key": idempotencyKey },
        body: JSON.stringify(payByLink(server)),
      }),
      "create",
    );
    await assertCalm503(await fetch(`${server.baseUrl}/pay/${reference}`), "checkout page");
    await assertCalm503(
      await fetch(`${server.baseUrl}/pay/${reference}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(cardFields()).toString(),
      }),
      "checkout post",
    );
    await assertCalm503(await fetch(`${server.baseUrl}/portal/overview`, { headers: { cookie } }), "portal");
    const icelandic = await fetch(`${server.baseUrl}/portal/links`, { headers: { cookie, "accept-language": "is" } });
    const html = await icelandic.clone().text();
    await assertCalm503(icelandic, "portal in Icelandic");
    assert.match(html, /Reyndu aftur/);
  }

  /** Back to work without a restart: the key of the refused create creates the link now. */
  async function assertRecovered(idempotencyKey: string) {
    const retried = await server.api("POST", "/api/v1/paymentlinks/create", payByLink(server), { "idempotency-key": idempotencyKey });
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal((await server.api("GET", `/api/v1/paymentlinks/${retried.body.paymentLinkReference}`)).status, 200);
    assert.equal((await fetch(`${server.baseUrl}/pay/${reference}`)).status, 200);
    assert.equal((await fetch(`${server.baseUrl}/portal/overview`, { headers: { cookie } })).status, 200, "the session survived");
  }

  test("the relation files moved away (ENOENT): 503 everywhere, then back to work", async () => {
    await restarted();
    const base = join(dataDir, "base");
    renameSync(base, `${base}.away`);
    try {
      await assertAllUnavailable("files-moved-1");
    } finally {
      renameSync(`${base}.away`, base);
    }
    await assertRecovered("files-moved-1");
    await server.close();
  });

  test("the data directory denied to the process (EACCES): 503 everywhere, then back to work", async () => {
    await restarted();
    const root = process.getuid?.() === 0;
    if (root) process.seteuid!(NOBODY);
    else chmodSync(dataDir, 0o000);
    try {
      await assertAllUnavailable("files-denied-1");
    } finally {
      if (root) process.seteuid!(0);
      else chmodSync(dataDir, 0o700);
    }
    await assertRecovered("files-denied-1");
    await server.close();
  });
});

test("a permission error of SQL itself (42501, as the files' EACCES) stays an internal error, not an outage", async () => {
  const handle = await openDatabase({ kind: "pglite-memory" });
  try {
    const error = await handle.db
      .transaction()
      .execute(async (trx) => {
        await sql`CREATE ROLE paylink_reader NOLOGIN`.execute(trx);
        await sql`SET LOCAL ROLE paylink_reader`.execute(trx);
        await sql`SELECT id FROM merchants`.execute(trx);
      })
      .catch((caught: unknown) => caught as { code?: string });
    assert.equal(error?.code, "42501", String(error));
    assert.equal(isDatabaseUnavailable(error), false);
  } finally {
    await handle.close();
  }
});
