// Payments whose outcome Paylink never learnt: the processor's reply was lost or late, or the
// process died between the charge and writing its result. Paylink's rule for them is simple and
// safe for the shopper: such an attempt never becomes a sale. It is reversed at the processor
// (by our checkoutReference, so a charge nobody recorded is voided) and only once the processor
// confirms, the submission is abandoned and its sale slot released. Until then the slot stays
// held, so the cap can never be exceeded by a charge that later turns out to have gone through.
import type { FastifyBaseLogger } from "fastify";
import { abandonSubmission, findStalePendingSubmissions } from "../db/checkout-repository.ts";
import type { Database } from "../db/connect.ts";
import type { PaymentProcessor } from "../payments/processor.ts";

const REVERSE_TIMEOUT_MS = 10_000;

export interface ReconcileDeps {
  db: Database;
  processor: PaymentProcessor;
  log: Pick<FastifyBaseLogger, "warn" | "error" | "info">;
}

/**
 * Asks the processor to reverse one attempt; true once it confirmed. Never throws: a failure is
 * logged (with the references an operator needs) and tried again by the next sweep.
 */
export async function reverseUnknownAttempt(deps: ReconcileDeps, checkoutReference: string): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      deps.processor.reverseAttempt(checkoutReference),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${REVERSE_TIMEOUT_MS / 1000} s`)), REVERSE_TIMEOUT_MS);
      }),
    ]);
    return true;
  } catch (error) {
    deps.log.error(
      { checkoutReference, error: error instanceof Error ? error.message.replace(/\d{6,}/g, "#") : "unknown" },
      "could not reverse a payment attempt with an unknown outcome; the sale slot stays held and the next sweep tries again",
    );
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reverses and abandons submissions pending for longer than the reservation time-out (one link's,
 * or any link's). Returns how many slots were released.
 */
export async function reconcileStalePayments(deps: ReconcileDeps, linkReference?: string): Promise<number> {
  const stale = await findStalePendingSubmissions(deps.db, linkReference === undefined ? {} : { linkReference });
  let released = 0;
  for (const checkoutReference of stale) {
    if (!(await reverseUnknownAttempt(deps, checkoutReference))) continue;
    if (await abandonSubmission(deps.db, checkoutReference)) {
      released += 1;
      deps.log.warn({ checkoutReference }, "payment attempt with an unknown outcome reversed at the processor and abandoned");
    }
  }
  return released;
}
