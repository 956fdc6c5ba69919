// A money action asked for in the portal (a saved card's charge, a refund, a reversal), bound to
// the one attempt its confirmation page issued: a second post of the same form (a double click,
// a resent request, "Back" and submit again) never moves money twice. It finds the first
// action's answer, or learns that it is still under way. The answer is kept as an
// Idempotency-Key's would be, under `portal-<action>:<attempt>`, with the action's effect.
import { createHash } from "node:crypto";
import {
  claimIdempotencyKey,
  type KeyClaim,
  type KeyedEffect,
  markKeyAppliedToCharge,
  releaseIdempotencyKey,
  storeAnswerWithEffect,
} from "../db/idempotency-repository.ts";
import { AppError } from "../domain/errors.ts";
import type { AfterSaleServiceDeps } from "./deps.ts";

/** `answer`: what the first post's action answered (a reference), for the result page. */
export type AttemptResult = { kind: "done"; answer: string } | { kind: "underWay" };

/** The confirmation page's one-time value: a UUID, checked before it names a key. */
export const ATTEMPT_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Runs `act` once per `attempt`; `input` is what was asked (a second post asking something else
 * under the same attempt is told "under way", never acted on). `answerOf` names the result.
 */
export async function oncePerAttempt<T>(
  deps: Pick<AfterSaleServiceDeps, "db">,
  merchantId: string,
  action: "charge" | "refund" | "reverse",
  attempt: string,
  input: unknown,
  act: (keyed: KeyedEffect<T>) => Promise<T>,
  answerOf: (result: T) => string,
): Promise<AttemptResult> {
  const key = `portal-${action}:${attempt}`;
  const requestHash = createHash("sha256").update(JSON.stringify(input)).digest("hex");
  const claimed = await claimIdempotencyKey(deps.db, merchantId, key, requestHash);
  if (claimed.outcome === "done") {
    if (claimed.requestHash !== requestHash) return { kind: "underWay" };
    return { kind: "done", answer: (JSON.parse(claimed.body) as { answer: string }).answer };
  }
  if (claimed.outcome === "running") return { kind: "underWay" };
  const claim: KeyClaim = { merchantId, key, token: claimed.token };
  const takenOver = () => new AppError("IdempotencyInProgress", "Another request took this action over.");
  const keyed: KeyedEffect<T> = {
    async answered(trx, result) {
      if (!(await storeAnswerWithEffect(trx, claim, 303, JSON.stringify({ answer: answerOf(result) })))) throw takenOver();
      claim.answeredWithEffect = true;
    },
    async started(trx, chargeReference) {
      if (!(await markKeyAppliedToCharge(trx, claim, chargeReference))) throw takenOver();
    },
  };
  try {
    return { kind: "done", answer: answerOf(await act(keyed)) };
  } catch (error) {
    // A refusal before the effect was recorded (bad amount, nothing left) leaves the attempt free to correct.
    if (!claim.answeredWithEffect) await releaseIdempotencyKey(deps.db, claim);
    throw error;
  }
}
