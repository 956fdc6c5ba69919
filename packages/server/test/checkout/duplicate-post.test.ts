// A form posted again while its first post is still at the processor (a reload, an impatient
// second click): the second post waits a moment for the first's result, then answers 202 "being
// processed" instead of paying twice; a post after the first has finished shows its result.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AuthorizeRequest, PaymentProcessor } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import { startTestServer } from "../support/harness.ts";
import { CARDS, cardFields, createLink, getPage, hiddenInputs, postForm, textOf } from "../support/shopper.ts";

describe("a second post of one form while the first is still at the processor", () => {
  it("gets the 202 'being processed' page, charges once, and a later post shows the result", async () => {
    const processor = new GatedProcessor();
    // How long a second post waits for the first before answering 202: the first is held at the
    // processor for longer than that, until the 202 has been seen.
    const server = await startTestServer({ processor, duplicateWaitMs: 200 });
    try {
      const reference = await createLink(server);
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      const fields = { ...hiddenInputs(page.html), ...cardFields(CARDS.visa), lang: "en" };
      const firstPost = postForm(server.baseUrl, reference, fields);
      await processor.reached;
      const second = await postForm(server.baseUrl, reference, fields);
      processor.release();
      assert.equal(second.status, 202);
      assert.match(textOf(second.html), /Your payment is being processed/);
      assert.match(textOf(second.html), /do not pay again/);
      const first = await firstPost;
      assert.equal(first.status, 200);
      const again = await postForm(server.baseUrl, reference, fields);
      assert.equal(again.status, 200);
      const link = (await server.api("GET", `/api/v1/paymentlinks/${reference}`)).body.paymentLink;
      assert.equal(link.salesCount, 1);
      assert.equal(link.submissions.length, 1);
      assert.equal(processor.calls, 1, "one processor call for three posts");
      assert.ok(again.html.includes(link.submissions[0].checkoutReference));
    } finally {
      processor.release();
      await server.close();
    }
  });
});

/** The sandbox, holding every authorisation at the processor until released. */
class GatedProcessor implements PaymentProcessor {
  readonly name = "gated";
  readonly sandbox = new SandboxProcessor();
  calls = 0;
  /** Resolves when the first authorisation has reached the processor. */
  readonly reached: Promise<void>;
  #arrive!: () => void;
  #open!: () => void;
  readonly #gate = new Promise<void>((resolve) => (this.#open = resolve));
  constructor() {
    this.reached = new Promise((resolve) => (this.#arrive = resolve));
  }
  release() {
    this.#open();
  }
  async authorize(request: AuthorizeRequest) {
    this.calls += 1;
    this.#arrive();
    await this.#gate;
    return this.sandbox.authorize(request);
  }
  cancel(reference: string) {
    return this.sandbox.cancel(reference);
  }
  reverseAttempt(checkoutReference: string) {
    return this.sandbox.reverseAttempt(checkoutReference);
  }
}
