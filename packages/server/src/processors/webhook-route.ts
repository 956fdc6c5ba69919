// POST /processors/{terminalIdentifier}/webhook: a real processor's notifications about payments on
// its page and about the refunds, reversals and captures it received (docs/processors.md#how-a-payment-goes). Each is checked by the processor's own signature
// scheme against this terminal's key; a bad one changes nothing (401). Every notification is
// recorded through the same use case as the shopper's return, so the same event twice, or events
// out of order, have one effect.
import type { FastifyInstance } from "fastify";
import { findHostedAttempt } from "../db/reservations-repository.ts";
import { errorName } from "../payments/error-name.ts";
import type { ServiceDeps } from "../services/deps.ts";
import { loadAttemptLink, settleHostedOutcome } from "../services/hosted-payment.ts";
import { settleNotifiedDispute } from "../services/notified-dispute.ts";
import { settleNotifiedModification } from "../services/notified-modification.ts";
import { settleNotifiedTokenCharge } from "../services/notified-token-charge.ts";
import { type ProcessorDirectory, ProcessorNotConfigured } from "../services/processor-directory.ts";

/** Notifications are small; a larger body is no processor's. */
const NOTIFICATION_BODY_LIMIT = 256 * 1024;

export interface ProcessorWebhookDeps extends Omit<ServiceDeps, "log"> {
  processors: ProcessorDirectory;
}

export async function processorWebhookRoutes(app: FastifyInstance, deps: ProcessorWebhookDeps): Promise<void> {
  // The signature covers the bytes as sent: the body is kept as text, parsed by the adapter.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit: NOTIFICATION_BODY_LIMIT }, (_request, body, done) => done(null, body));

  app.post<{ Params: { terminalIdentifier: string } }>(
    "/:terminalIdentifier/webhook",
    { schema: { hide: true } },
    async (request, reply) => {
      const { terminalIdentifier } = request.params;
      // No such terminal, or none with a real processor: 404. Anything else (the database away) is
      // an error the processor sees as such and sends again later.
      const processor = await deps.processors.hostedFor(terminalIdentifier).catch((error: unknown) => {
        if (error instanceof ProcessorNotConfigured) return undefined;
        throw error;
      });
      if (!processor) return reply.code(404).send({ error: "no processor is configured for this terminal" });
      const rawBody = typeof request.body === "string" ? request.body : "";
      const notifications = processor.parseNotification(request.headers, rawBody);
      if (notifications === null) {
        request.log.warn({ terminalIdentifier }, "processor notification refused: bad signature");
        return reply.code(401).send({ error: "signature does not verify" });
      }
      const service = { db: deps.db, now: deps.now, log: request.log };
      for (const notification of notifications) {
        if ("modification" in notification) {
          const settled = await settleNotifiedModification(service, terminalIdentifier, notification);
          // Not acknowledged: the processor sends it again, by when the "received" answer is recorded.
          if (settled === "too-early")
            return reply.code(503).header("retry-after", "60").send({ error: "not ready for this notification yet" });
          if (settled === "not-ours")
            request.log.info({ terminalIdentifier }, "processor notification about no modification made by Paylink: ignored");
          continue;
        }
        if ("dispute" in notification) {
          if ((await settleNotifiedDispute(service, terminalIdentifier, notification)) === "not-ours")
            request.log.info({ terminalIdentifier }, "dispute about no payment of this terminal: ignored");
          continue;
        }
        const attempt = await findHostedAttempt(deps.db, undefined, notification.checkoutReference);
        const link = attempt && (await loadAttemptLink(deps, attempt.linkReference));
        // Only this terminal's payments: another terminal's key never decides them.
        if (!attempt && (await settleNotifiedTokenCharge(service, processor, terminalIdentifier, notification))) continue;
        if (!attempt || !link || link.terms.terminalIdentifier !== terminalIdentifier) {
          request.log.info({ terminalIdentifier }, "processor notification about no payment of this terminal: ignored");
          continue;
        }
        try {
          await settleHostedOutcome(service, processor, link, attempt, notification.outcome);
        } catch (error) {
          // Not acknowledged: the processor sends it again.
          request.log.error(
            { checkoutReference: attempt.checkoutReference, error: errorName(error) },
            "could not record a processor notification",
          );
          throw error;
        }
      }
      return reply.code(200).header("content-type", processor.notificationAnswer.contentType).send(processor.notificationAnswer.body);
    },
  );
}
