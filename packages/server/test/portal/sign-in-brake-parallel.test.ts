// The sign-in brake under attempts that arrive together (issue 29, finding 2): each attempt takes
// its place in the brake before its password is checked, so of 40 parallel sign-ins to one account
// at most the limit are checked and the right password, sent among them, is refused while braked —
// on each database, and on PostgreSQL across two instances. The second step (the two-factor code)
// is braked the same way: of 40 codes at once at most the limit are checked. Checked attempts answer 401 (wrong) or
// 303 (right); braked ones 429 without a check.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { MAX_FAILURES_PER_ACCOUNT, MAX_FAILURES_PER_ADDRESS } from "../../src/domain/portal/signin-brake.ts";
import { testBackends } from "../support/databases.ts";
import { startSecondInstance, startTestServer, type TestServer } from "../support/harness.ts";
import { addPortalUser, PORTAL_PASSWORD, PortalClient } from "../support/portal.ts";
import { codeFor, enrol } from "../support/two-factor.ts";

for (const backend of testBackends()) {
  describe(`the sign-in brake under parallel attempts (${backend.name})`, () => {
    let servers: TestServer[];
    before(async () => {
      const first = await startTestServer({ backend });
      servers = backend.name === "postgres" ? [first, await startSecondInstance(first)] : [first];
    });
    after(async () => {
      for (const server of [...servers].reverse()) await server.close();
    });

    /** Posts every attempt at once (each with its own sign-in form), the right ones a moment after the wrong. */
    async function signInAtOnce(attempts: { email: string; password: string; late?: boolean }[]) {
      const clients = attempts.map((_, index) => new PortalClient(servers[index % servers.length]!.baseUrl));
      const forms = await Promise.all(clients.map((client) => client.get("/portal/sign-in")));
      return Promise.all(
        attempts.map(async (attempt, index) => {
          if (attempt.late) await new Promise((resolve) => setTimeout(resolve, 30));
          const page = await clients[index]!.post("/portal/sign-in", { email: attempt.email, password: attempt.password }, forms[index]);
          return page.status;
        }),
      );
    }

    test("40 sign-ins to one account at once, 39 wrong and 1 right: at most 5 checked, the right one refused", async () => {
      await addPortalUser(servers[0]!, servers[0]!, "target@example.com");
      const attempts = [
        ...Array.from({ length: 39 }, (_, index) => ({ email: "target@example.com", password: `wrong ${index}` })),
        { email: "target@example.com", password: PORTAL_PASSWORD, late: true },
      ];
      const statuses = await signInAtOnce(attempts);
      const checked = statuses.filter((status) => status === 401 || status === 303).length;
      assert.ok(checked <= MAX_FAILURES_PER_ACCOUNT, `${checked} passwords checked: ${statuses.join(" ")}`);
      assert.equal(statuses.at(-1), 429, "the right password is refused while braked");
      assert.deepEqual(
        statuses.filter((status) => ![401, 429].includes(status)),
        [],
        "every attempt is either checked and wrong, or braked",
      );
      // A braked attempt gives its place back (an attempt that counted it may have been held back
      // early): one by one, exactly the limit of wrong passwords in all, then the right one waits.
      let more = 0;
      while ((await new PortalClient(servers[0]!.baseUrl).signIn("target@example.com", "wrong again")).status === 401) more++;
      assert.equal(checked + more, MAX_FAILURES_PER_ACCOUNT);
      assert.equal((await new PortalClient(servers[0]!.baseUrl).signIn("target@example.com", PORTAL_PASSWORD)).status, 429);
    });

    test("40 sign-ins to 40 accounts from one address at once: at most the address's limit checked", async () => {
      const attempts = Array.from({ length: 40 }, (_, index) => ({ email: `nobody-${index}@example.com`, password: "wrong" }));
      const statuses = await signInAtOnce(attempts);
      const checked = statuses.filter((status) => status === 401).length;
      assert.ok(checked <= MAX_FAILURES_PER_ADDRESS, `${checked} passwords checked: ${statuses.join(" ")}`);
      assert.equal(statuses.filter((status) => status === 429).length, 40 - checked);
    });
  });
}

for (const backend of testBackends()) {
  describe(`the two-factor code brake under parallel attempts (${backend.name})`, () => {
    let servers: TestServer[];
    before(async () => {
      const first = await startTestServer({ backend });
      servers = backend.name === "postgres" ? [first, await startSecondInstance(first)] : [first];
    });
    after(async () => {
      for (const server of [...servers].reverse()) await server.close();
    });

    test("40 wrong codes for one user at once: at most 5 checked, and then the right one waits", async () => {
      const user = await addPortalUser(servers[0]!, servers[0]!, "coded@example.com");
      const enroller = new PortalClient(servers[0]!.baseUrl);
      await enroller.signIn(user.email, user.password);
      const { secret } = await enrol(enroller);
      // One browser per instance past the password, all posting their codes at once.
      const clients = servers.map((server) => new PortalClient(server.baseUrl));
      for (const client of clients) assert.equal((await client.signIn(user.email, user.password)).status, 303);
      const forms = await Promise.all(clients.map((client) => client.get("/portal/sign-in/code")));
      const statuses = await Promise.all(
        Array.from({ length: 40 }, async (_, index) => {
          const client = index % clients.length;
          return (await clients[client]!.post("/portal/sign-in/code", { code: String(100000 + index) }, forms[client])).status;
        }),
      );
      const checked = statuses.filter((status) => status === 401).length;
      assert.ok(checked <= MAX_FAILURES_PER_ACCOUNT, `${checked} codes checked: ${statuses.join(" ")}`);
      assert.equal(statuses.filter((status) => status === 429).length, 40 - checked, statuses.join(" "));
      // A braked attempt gives its place back, so the burst may have checked fewer than the limit:
      // one by one, exactly the limit of wrong codes in all, then the right one waits.
      let more = 0;
      while ((await clients[0]!.post("/portal/sign-in/code", { code: "999999" }, forms[0])).status === 401) more++;
      assert.equal(checked + more, MAX_FAILURES_PER_ACCOUNT);
      const right = await clients[0]!.post("/portal/sign-in/code", { code: codeFor(secret, 1) }, forms[0]);
      assert.equal(right.status, 429, "the right code waits while braked");
    });
  });
}
