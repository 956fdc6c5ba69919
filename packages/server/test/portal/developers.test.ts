// The portal's developer pages over real HTTP, with a real webhook worker and receiver: an API key
// created in the portal works at once and its revocation stops it at once; terminals are listed;
// a webhook endpoint is added, edited, sent a test message (signed with its HMAC key), rotated,
// revealed, disabled, resent and deleted. Every POST answers with a redirect, secrets are shown
// once on the page it leads to, and revoke, rotate, disable and delete ask first.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { WebhookWorker } from "../../src/webhooks/worker.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { testKeyring } from "../support/keyring.ts";
import { type PortalClient, type PortalPage, signedIn } from "../support/portal.ts";
import { waitUntil } from "../support/wait.ts";
import { independentPaymentSignature, type Receiver, startReceiver } from "../webhooks/support.ts";

const secretOf = (page: PortalPage, index = 0) =>
  [...page.html.matchAll(/<code class="secret" data-value="true">([^<]+)<\/code>/g)][index]?.[1];

describe("portal developers (pglite)", () => {
  let server: TestServer;
  let portal: PortalClient;
  let receiver: Receiver;
  let worker: WebhookWorker;
  before(async () => {
    server = await startTestServer({ allowPrivateTargets: true });
    portal = await signedIn(server);
    receiver = await startReceiver();
    worker = new WebhookWorker({ db: server.db, keyring: testKeyring(), allowPrivate: true, idleIntervalMs: 100 }).start();
  });
  const follow = (page: PortalPage) => {
    assert.equal(page.status, 303);
    return portal.get(page.location!);
  };
  after(async () => {
    await worker?.stop();
    await receiver?.close();
    await server?.close();
  });

  test("an API key created in the portal is shown once and works; revoked, it gets 401 at once; last use is shown", async () => {
    const page = await portal.get("/portal/developers");
    assert.equal(page.status, 200);
    assert.match(page.text, new RegExp(server.terminalIdentifier), "the terminal identifier is listed");
    const posted = await portal.post("/portal/developers/api-keys", { name: "Shop server" }, page);
    assert.equal(posted.status, 303);
    const created = await follow(posted);
    const apiKey = secretOf(created);
    assert.match(apiKey ?? "", /^plk_[0-9A-Za-z]{32}$/);
    const list = await fetch(`${server.baseUrl}/api/v1/paymentlinks`, { headers: { "x-api-key": apiKey! } });
    assert.equal(list.status, 200);
    const reloaded = await portal.get(posted.location!);
    assert.equal(secretOf(reloaded), undefined, "a reload shows the key no more");
    assert.match(reloaded.text, /Its secret was shown only once/);
    const again = await portal.get("/portal/developers");
    assert.equal(secretOf(again), undefined, "the key is never shown again");
    assert.equal((await server.db.selectFrom("api_keys").select("id").where("name", "=", "Shop server").execute()).length, 1);
    const row = new RegExp(
      `data-key-id="(key_[A-Za-z0-9]+)"><td data-label="Name"><span>Shop server</span></td><td class="mono" data-label="Starts with"><span>${apiKey!.slice(0, 8)}…</span></td><td data-label="Created"><span>[^<]+</span></td><td data-label="Last used"><span>(?!Never)`,
    );
    const keyId = row.exec(again.html)?.[1];
    assert.ok(keyId, "the list shows the name, the prefix and a last-used time");
    assert.doesNotMatch(again.html, /<form method="post" action="\/portal\/developers\/api-keys\/[^"]+\/revoke"/, "no one-click revoke");
    const question = await portal.get(`/portal/developers/api-keys/${keyId}/revoke`);
    assert.match(question.text, /Revoke the key “Shop server”\?/);
    const stillWorks = await fetch(`${server.baseUrl}/api/v1/paymentlinks`, { headers: { "x-api-key": apiKey! } });
    assert.equal(stillWorks.status, 200, "asking changes nothing");
    const revoked = await portal.post(`/portal/developers/api-keys/${keyId}/revoke`, {}, question);
    assert.equal(revoked.status, 303);
    const refused = await fetch(`${server.baseUrl}/api/v1/paymentlinks`, { headers: { "x-api-key": apiKey! } });
    assert.equal(refused.status, 401);
    assert.match((await portal.get("/portal/developers?done=revoked")).text, /The key was revoked/);
  });

  test("an Authorization key Node could not send as a header is refused on add and on edit, by the admin API's rule", async () => {
    const page = await portal.get("/portal/developers");
    const count = async () => (await server.db.selectFrom("webhook_endpoints").select("id").execute()).length;
    const before = await count();
    for (const apiKey of ["Bearer abc\r\nX-Injected: 1", "Bearer  two-spaces", "x".repeat(513)]) {
      const refused = await portal.post("/portal/developers/webhooks", { url: `${receiver.url}/hooks`, apiKey }, page);
      assert.equal(refused.status, 400, JSON.stringify(apiKey.slice(0, 30)));
      assert.match(refused.text, /Authorization key: the key (must be printable ASCII|is longer than 512)/);
    }
    assert.equal(await count(), before, "nothing was added");
    const posted = await portal.post("/portal/developers/webhooks", { url: `${receiver.url}/hooks`, apiKey: "x".repeat(512) }, page);
    assert.equal(posted.status, 303, "512 characters are allowed, as in the admin API");
    const added = await follow(posted);
    const webhookId = /data-new-webhook="(whk_[A-Za-z0-9]+)"/.exec(added.html)?.[1];
    const path = `/portal/developers/webhooks/${webhookId}`;
    const detail = await portal.get(path);
    const edited = await portal.post(path, { url: `${receiver.url}/hooks`, apiKey: "Bearer ok\nnot" }, detail);
    assert.equal(edited.status, 400);
    const revealed = await follow(await portal.post(`${path}/reveal`, {}, detail));
    assert.equal(secretOf(revealed, 0), "x".repeat(512), "the key is unchanged");
    assert.equal((await portal.post(`${path}/delete`, {}, detail)).status, 303);
  });

  test("a webhook endpoint: add, test message signed with its key, rotate, reveal, edit, disable, resend, delete", async () => {
    const page = await portal.get("/portal/developers");
    const bad = await portal.post("/portal/developers/webhooks", { url: "ftp://example.com/hook" }, page);
    assert.equal(bad.status, 400);
    const endpoints = async () => (await server.db.selectFrom("webhook_endpoints").select("id").execute()).length;
    const before = await endpoints();
    const posted = await portal.post("/portal/developers/webhooks", { url: `${receiver.url}/hooks`, apiKey: "receiver-secret-123" }, page);
    assert.equal(posted.status, 303);
    const added = await follow(posted);
    assert.equal(secretOf(added, 0), "receiver-secret-123");
    const hmacKey = secretOf(added, 1)!;
    assert.match(hmacKey, /^[0-9a-f]{64}$/);
    const webhookId = /data-new-webhook="(whk_[A-Za-z0-9]+)"/.exec(added.html)?.[1];
    const path = `/portal/developers/webhooks/${webhookId}`;
    let detail = await portal.get(path);
    assert.equal(detail.status, 200);
    assert.equal(secretOf(detail), undefined, "the keys were shown once");
    assert.equal(await endpoints(), before + 1, "reloading added nothing");

    const tested = await follow(await portal.post(`${path}/test`, {}, detail));
    assert.match(tested.text, /A test message is on its way/);
    const [request] = await receiver.waitFor(1);
    const message = JSON.parse(request!.body);
    assert.equal(message.additionalData.eventType, "Test");
    assert.equal(request!.headers.authorization, "receiver-secret-123");
    assert.equal(message.hmacSignature, independentPaymentSignature(message, hmacKey));
    detail = await waitUntil(async () => {
      const next = await portal.get(path);
      return /· Test · Delivered · Attempts: 1/.test(next.text) && next;
    });

    const rotateQuestion = await portal.get(`${path}/rotate`);
    assert.match(rotateQuestion.text, /Rotate the HMAC key\?/);
    const rotatePosted = await portal.post(`${path}/rotate`, {}, rotateQuestion);
    assert.equal(rotatePosted.status, 303);
    const rotated = await follow(rotatePosted);
    const newKey = secretOf(rotated)!;
    assert.match(newKey, /^[0-9a-f]{64}$/);
    assert.notEqual(newKey, hmacKey);
    const reloadedRotation = await portal.get(rotatePosted.location!);
    assert.equal(secretOf(reloadedRotation), undefined, "a reload neither rotates again nor shows the key");
    const revealed = await follow(await portal.post(`${path}/reveal`, {}, rotated));
    assert.equal(secretOf(revealed, 1), newKey, "one rotation only");

    const deliveryId = /data-delivery="(msg_[0-9a-f]+)"/.exec(detail.html)?.[1];
    const resent = await follow(await portal.post(`${path}/deliveries/${deliveryId}/resend`, {}, detail));
    assert.match(resent.text, /will be sent again/);
    const [, second] = await receiver.waitFor(2);
    const resentMessage = JSON.parse(second!.body);
    assert.equal(resentMessage.hmacSignature, independentPaymentSignature(resentMessage, newKey), "the resend is signed with the new key");

    const edited = await follow(await portal.post(path, { url: `${receiver.url}/hooks/v2`, apiKey: "" }, detail));
    assert.match(edited.text, /Saved\./);
    assert.match(edited.text, /\/hooks\/v2/);
    const disableQuestion = await portal.get(`${path}/disable`);
    assert.match(disableQuestion.text, /Disable the endpoint http:\/\/[^ ]+\/hooks\/v2\?/);
    assert.doesNotMatch((await portal.get(path)).text, /The endpoint is disabled/, "asking changes nothing");
    const disabled = await follow(await portal.post(`${path}/disable`, {}, disableQuestion));
    assert.match(disabled.text, /The endpoint is disabled: nothing is sent to it/);
    const deleteQuestion = await portal.get(`${path}/delete`);
    assert.match(deleteQuestion.text, /Its delivery log goes with it/);
    const deleted = await portal.post(`${path}/delete`, {}, deleteQuestion);
    assert.equal(deleted.status, 303);
    assert.match((await follow(deleted)).text, /The endpoint and its delivery log were deleted/);
    assert.equal((await portal.get(path)).status, 404);
    assert.equal((await portal.get(`${path}/delete`)).status, 404, "no question about an endpoint that is gone");
  });

  test("an endpoint's health: Delivering, then Failing with its retry, given up, and Paused, in colour and in words", async () => {
    const page = await portal.get("/portal/developers");
    const posted = await portal.post("/portal/developers/webhooks", { url: "http://127.0.0.1:9/nobody-listens" }, page);
    const path = new URL(posted.location!, server.baseUrl).pathname;
    const webhookId = path.split("/").pop()!;
    const condition = (html: string) => /data-condition="(\w+)"/.exec(html)?.[1];
    assert.equal(condition((await portal.get(path)).html), "healthy");
    assert.match((await portal.get(path)).text, /Delivering/);

    await portal.post(`${path}/test`, {}, await portal.get(path));
    const failing = await waitUntil(async () => {
      const next = await portal.get(path);
      return condition(next.html) === "failing" && next;
    });
    assert.match(failing.html, /class="pill bad" data-condition="failing">Failing</);
    assert.match(failing.text, /1 message waits for a retry, failing since .+; next try .+\./);
    assert.match(failing.text, /· Test · Retrying · Attempts: 1/, "the log says the message is being retried");
    const list = await portal.get("/portal/developers");
    assert.match(
      list.html,
      new RegExp(`${webhookId}">http://127.0.0.1:9/nobody-listens</a> <span class="pill bad" data-condition="failing">`),
    );

    await server.db.updateTable("webhook_deliveries").set({ state: "failed" }).where("endpoint_id", "=", webhookId).execute();
    assert.match((await portal.get(path)).text, /1 message was given up on in the last 7 days/);
    await server.db
      .insertInto("webhook_endpoint_health")
      .values({ endpoint_id: webhookId, consecutive_failures: 5, open_until: new Date(Date.now() + 3_600_000), opened_at: new Date() })
      .onConflict((oc) => oc.column("endpoint_id").doUpdateSet({ open_until: new Date(Date.now() + 3_600_000) }))
      .execute();
    const paused = await portal.get(path);
    assert.equal(condition(paused.html), "paused");
    assert.match(paused.text, /The endpoint stopped answering: nothing is sent to it until/);
    await portal.post(`${path}/disable`, {}, paused);
    assert.equal(condition((await portal.get(path)).html), "disabled", "a disabled endpoint says so, nothing more");
    assert.doesNotMatch((await portal.get(path)).html, /data-health/);
  });
});
