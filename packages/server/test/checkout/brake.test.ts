// The card-testing brake under concurrency (docs/checkout.md#card-testing-brake): each attempt is
// counted in the database before the processor is called, so posts sent at once cannot slip past
// the limit, and on PostgreSQL every instance counts in the same place. Approvals give their
// attempt back; the window ends; old counters are cleaned.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { deleteExpiredCheckoutAttempts } from "../../src/db/checkout-attempts-repository.ts";
import type { RateLimits } from "../../src/http/rate-limit.ts";
import type { AuthorizeRequest, AuthorizeResult, PaymentProcessor } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import { testBackends } from "../support/databases.ts";
import { startSecondInstance, startTestServer, type TestServer } from "../support/harness.ts";
import { CARDS, cardFields, createLink, getPage, hiddenInputs, type PageResponse, pay, postForm } from "../support/shopper.ts";
import { waitUntil } from "../support/wait.ts";

/** The sandbox, counting every call, and able to hold every call until released. */
class CountingProcessor implements PaymentProcessor {
  readonly name = "counting";
  readonly sandbox = new SandboxProcessor();
  calls = 0;
  private gate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;
  hold() {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }
  release() {
    this.openGate?.();
    this.gate = undefined;
  }
  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    this.calls++;
    if (this.gate) await this.gate;
    return this.sandbox.authorize(request);
  }
  cancel(payfacReference: string) {
    return this.sandbox.cancel(payfacReference);
  }
  reverseAttempt(checkoutReference: string) {
    return this.sandbox.reverseAttempt(checkoutReference);
  }
}

const WINDOW_MS = 15 * 60_000;
const LIMITS: RateLimits = { apiPerMinute: 0, checkoutFailures: 10, checkoutWindowMs: WINDOW_MS };

for (const backend of testBackends()) {
  describe(`checkout brake under concurrency (${backend.name})`, () => {
    let server: TestServer;
    let second: TestServer | undefined;
    let instances: TestServer[];
    const processor = new CountingProcessor();
    /** Added to both instances' clocks, to let a window end. */
    let clockOffsetMs = 0;
    const now = () => new Date(Date.now() + clockOffsetMs);

    before(async () => {
      server = await startTestServer({ backend, processor, rateLimits: LIMITS, now });
      if (backend.name === "postgres") second = await startSecondInstance(server, { processor, rateLimits: LIMITS, now });
      instances = second ? [server, second] : [server];
    });
    after(async () => {
      await second?.close();
      await server.close();
    });

    const at = (i: number) => instances[i % instances.length]!.baseUrl;

    it(`60 declines posted at once${backend.name === "postgres" ? " to two instances" : ""}: 10 processor calls, the other 50 get 429 with Retry-After`, async () => {
      const reference = await createLink(server, { culture: "en" });
      const pages = await Promise.all(Array.from({ length: 60 }, (_, i) => getPage(at(i), `/pay/${reference}`)));
      const callsBefore = processor.calls;
      // Every call is held at the processor until each of the 60 posts either reached it or was
      // answered without it: all 60 are in flight together, whatever the machine's speed.
      processor.hold();
      let answeredWithoutProcessor = 0;
      const posts: Array<Promise<PageResponse>> = [];
      try {
        for (const [i, page] of pages.entries()) {
          const post = postForm(at(i + 1), reference, { ...hiddenInputs(page.html), ...cardFields(CARDS.refused) });
          posts.push(
            post.then((response) => {
              answeredWithoutProcessor += 1;
              return response;
            }),
          );
        }
        await waitUntil(
          async () => processor.calls - callsBefore + answeredWithoutProcessor >= 60,
          60_000,
          "every post at the processor or answered",
        );
      } finally {
        processor.release();
      }
      const responses = await Promise.all(posts);
      const statuses = responses.map((r) => r.status);
      assert.equal(processor.calls - callsBefore, 10, "processor calls");
      assert.equal(statuses.filter((s) => s === 402).length, 10, statuses.join(","));
      assert.equal(statuses.filter((s) => s === 429).length, 50, statuses.join(","));
      for (const response of responses.filter((r) => r.status === 429)) {
        const retryAfter = Number(response.headers.get("retry-after"));
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= WINDOW_MS / 1000, `Retry-After ${retryAfter}`);
      }
      const submissions = await server.database.db.selectFrom("submissions").select("id").where("link_reference", "=", reference).execute();
      assert.equal(submissions.length, 10);

      // The ten declines fill the window: the next post, on either instance, is refused for its rest.
      const blocked = await pay(at(1), reference, cardFields(CARDS.visa));
      assert.equal(blocked.status, 429);
      assert.ok(Number(blocked.headers.get("retry-after")) > 60, "blocked until the window ends, not for a moment");
      assert.equal(processor.calls - callsBefore, 10);
    });

    it("a successful payment never counts: after 9 declines, payments keep going through, and the 10th decline is still answered", async () => {
      const reference = await createLink(server, { culture: "en" });
      for (let i = 0; i < 9; i++) assert.equal((await pay(at(i), reference, cardFields(CARDS.refused))).status, 402);
      for (let i = 0; i < 5; i++) assert.equal((await pay(at(i), reference, cardFields(CARDS.visa))).status, 200, `payment ${i}`);
      assert.equal((await pay(at(0), reference, cardFields(CARDS.refused))).status, 402);
      assert.equal((await pay(at(1), reference, cardFields(CARDS.visa))).status, 429);
    });

    it("the window ends: a blocked client may try again, and the expired counters are cleaned", async () => {
      const reference = await createLink(server, { culture: "en" });
      for (let i = 0; i < 10; i++) assert.equal((await pay(at(i), reference, cardFields(CARDS.refused))).status, 402);
      assert.equal((await pay(at(0), reference, cardFields(CARDS.visa))).status, 429);
      const db = server.database.db;
      const counters = () => db.selectFrom("checkout_attempts").select("failures").where("link_reference", "=", reference).execute();
      try {
        clockOffsetMs = WINDOW_MS + 1000;
        assert.ok((await deleteExpiredCheckoutAttempts(db, now())) >= 1);
        assert.equal((await counters()).length, 0, "the ended window's counter is removed");
        assert.equal((await pay(at(1), reference, cardFields(CARDS.refused))).status, 402, "a new window");
        assert.deepEqual(await counters(), [{ failures: 1 }]);
        await deleteExpiredCheckoutAttempts(db, now());
        assert.deepEqual(await counters(), [{ failures: 1 }], "a live counter stays");
      } finally {
        clockOffsetMs = 0;
      }
    });
  });
}
