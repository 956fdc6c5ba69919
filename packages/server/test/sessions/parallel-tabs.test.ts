// One order, one payment (docs/decisions.md#sale-cap-reservation): a shopper with the session open
// in several tabs, paying in all of them at once, gets exactly one sale, on one instance and on two
// instances sharing one PostgreSQL. The others are told the order is being paid or is paid, and
// no second card is charged.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { AuthorizeRequest, AuthorizeResult, PaymentProcessor } from "../../src/payments/processor.ts";
import { SandboxProcessor } from "../../src/payments/sandbox.ts";
import { testBackends } from "../support/databases.ts";
import { startSecondInstance, startTestServer, type TestServer } from "../support/harness.ts";
import { addWebhookEndpoint, outboxMessages } from "../support/outbox.ts";
import { createSession, postSessionForm, sessionStatus } from "../support/sessions.ts";
import { cardFields, getPage, hiddenInputs } from "../support/shopper.ts";

/** The sandbox with latency, counting the processor's approvals. */
class CountingProcessor implements PaymentProcessor {
  readonly name = "counting";
  private readonly sandbox = new SandboxProcessor({ latencyMs: 20 });
  approvals = 0;
  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    const result = await this.sandbox.authorize(request);
    if (result.approved) this.approvals++;
    return result;
  }
  async cancel() {}
  async reverseAttempt() {}
}

for (const backend of testBackends()) {
  describe(`parallel tabs paying one session (${backend.name})`, () => {
    let server: TestServer;
    let second: TestServer | undefined;
    const processors = [new CountingProcessor(), new CountingProcessor()];
    let instances: TestServer[];

    before(async () => {
      server = await startTestServer({ backend, processor: processors[0] });
      if (backend.name === "postgres") second = await startSecondInstance(server, { processor: processors[1] });
      instances = second ? [server, second] : [server];
      await addWebhookEndpoint(server);
    });
    after(async () => {
      await second?.close();
      await server.close();
    });

    it(`8 tabs pay at once: exactly one success${backend.name === "postgres" ? " (two app instances)" : ""}`, async () => {
      const { checkoutReference } = await createSession(server, { reference: "tabs-1" });
      const pages = await Promise.all(
        Array.from({ length: 8 }, (_, i) => getPage(instances[i % instances.length]!.baseUrl, `/checkout/${checkoutReference}`)),
      );
      for (const page of pages) assert.equal(page.status, 200);
      const responses = await Promise.all(
        pages.map((page, i) =>
          postSessionForm(instances[(i + 1) % instances.length]!.baseUrl, checkoutReference, {
            ...hiddenInputs(page.html),
            ...cardFields(),
          }),
        ),
      );
      const statuses = responses.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 303).length, 1, statuses.join(","));
      // The others: another tab is paying (202) or the order is paid (410); never a second charge.
      assert.ok(
        statuses.every((s) => s === 303 || s === 202 || s === 410),
        statuses.join(","),
      );
      assert.equal(processors[0]!.approvals + processors[1]!.approvals, 1, "one card charged");
      const status = await sessionStatus(server, checkoutReference);
      assert.equal(status.body.status, "Completed");
      const sales = await server.db
        .selectFrom("submissions")
        .select("payfac_reference")
        .where("link_reference", "=", checkoutReference)
        .where("state", "=", "approved")
        .execute();
      assert.deepEqual(
        sales.map((s) => s.payfac_reference),
        [status.body.payfacReference],
      );
      const authorizations = (await outboxMessages(server)).filter((m) => m.payload.checkoutReference === checkoutReference);
      assert.deepEqual(
        authorizations.map((m) => [m.eventType, m.payload.success]),
        [["Authorization", "true"]],
      );
    });
  });
}
