// The card-testing brake (docs/checkout.md#card-testing-brake, docs/decisions.md#checkout-brake): a payment attempt is taken
// for the client's address and the link before anything else of the post is looked at, and
// finished before the answer is sent: given back when it was no failure (so a shopper who pays is
// never held back), kept when the card was declined or the form rejected. The counters live in the
// database (db/checkout-attempts-repository.ts), shared by every instance.
import { createHmac } from "node:crypto";
import type { FastifyBaseLogger, FastifyRequest } from "fastify";
import { deleteExpiredCheckoutAttempts, finishCheckoutAttempt, takeCheckoutAttempt } from "../db/checkout-attempts-repository.ts";
import type { Database } from "../db/connect.ts";
import { clientKey, type RateLimits } from "../http/rate-limit.ts";
import { errorName } from "../payments/error-name.ts";

/**
 * When only attempts still at the processor fill the budget (no failures yet), their answers come
 * within seconds: the client is asked to wait that long, not for the rest of the window.
 */
const IN_FLIGHT_RETRY_SECONDS = 5;

export type BrakeAttempt =
  | { blocked: true; retryAfterSeconds: number; because: "failures" | "in-flight" }
  | {
      blocked: false;
      /** Idempotent, and never throws: the first call decides; later calls do nothing. */
      finish(failed: boolean): Promise<void>;
    };

export interface CheckoutBrake {
  take(request: FastifyRequest, linkReference: string, now: Date): Promise<BrakeAttempt>;
}

const NOT_COUNTED: BrakeAttempt = { blocked: false, finish: async () => {} };

/** A brake that never holds anyone back (the limit is turned off). */
export const NO_CHECKOUT_BRAKE: CheckoutBrake = { take: async () => NOT_COUNTED };

/** `secret` keys the hash under which addresses are stored, so the table never holds one. */
export function checkoutBrake(db: Database, limits: RateLimits, secret: Buffer): CheckoutBrake {
  if (limits.checkoutFailures <= 0) return NO_CHECKOUT_BRAKE;
  const limiterLimits = { limit: limits.checkoutFailures, windowMs: limits.checkoutWindowMs };
  return {
    async take(request, linkReference, now) {
      const key = {
        clientKey: createHmac("sha256", secret)
          .update(`checkout-brake|${clientKey(request)}`)
          .digest("base64url")
          .slice(0, 22),
        linkReference,
      };
      const taken = await takeCheckoutAttempt(db, key, limiterLimits, now);
      if (taken.kind === "blocked") {
        const windowLeft = Math.max(1, Math.ceil((taken.windowEndsAt.getTime() - now.getTime()) / 1000));
        const retryAfterSeconds = taken.because === "failures" ? windowLeft : Math.min(IN_FLIGHT_RETRY_SECONDS, windowLeft);
        return { blocked: true, retryAfterSeconds, because: taken.because };
      }
      let finished = false;
      return {
        blocked: false,
        async finish(failed) {
          if (finished) return;
          finished = true;
          try {
            await finishCheckoutAttempt(db, taken.ticket, failed);
          } catch (error) {
            // Never in the way of the shopper's answer (it may be a sale). The attempt stays counted
            // until its window ends: the brake errs on the side of braking.
            request.log.warn({ paymentLinkReference: linkReference, error: errorName(error) }, "could not finish a checkout brake attempt");
          }
        },
      };
    },
  };
}

/** The periodic clean-up of ended windows' counters; never throws. */
export async function cleanCheckoutBrake(db: Database, now: Date, log: Pick<FastifyBaseLogger, "warn" | "info">): Promise<void> {
  try {
    const removed = await deleteExpiredCheckoutAttempts(db, now);
    if (removed > 0) log.info({ removed }, "ended checkout brake windows removed");
  } catch (error) {
    log.warn({ error: errorName(error) }, "checkout brake clean-up failed");
  }
}
