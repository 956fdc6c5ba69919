// A charge of a saved card asked for in the portal: the same use case as POST /api/v1/payment
// (charge-token.ts), bound to the one attempt the confirmation page issued, so that a second post
// of the same form (a double click, a resent request) never charges twice: it finds the first
// charge's result, or learns that it is still under way.
import { createHash } from "node:crypto";
import {
  claimIdempotencyKey,
  type KeyClaim,
  type KeyedEffect,
  markKeyAppliedToCharge,
  releaseIdempotencyKey,
  storeAnswerWithEffect,
} from "../db/idempotency-repository.ts";
import type { Actor } from "../domain/audit/actor.ts";
import { AppError } from "../domain/errors.ts";
import { chargeSavedCard, type TokenCharge, type TokenChargeInput } from "./charge-token.ts";
import type { AfterSaleServiceDeps } from "./deps.ts";

export type PortalChargeResult = { kind: "charged"; checkoutReference: string } | { kind: "underWay" };

/** `attempt`: the confirmation page's one-time value; the charge's answer is kept under it. */
export async function chargeSavedCardOnce(
  deps: AfterSaleServiceDeps,
  merchantId: string,
  actor: Actor,
  input: TokenChargeInput,
  attempt: string,
): Promise<PortalChargeResult> {
  const key = `portal-charge:${attempt}`;
  const requestHash = createHash("sha256").update(JSON.stringify(input)).digest("hex");
  const claimed = await claimIdempotencyKey(deps.db, merchantId, key, requestHash);
  if (claimed.outcome === "done") {
    if (claimed.requestHash !== requestHash) return { kind: "underWay" };
    return { kind: "charged", checkoutReference: (JSON.parse(claimed.body) as { checkoutReference: string }).checkoutReference };
  }
  if (claimed.outcome === "running") return { kind: "underWay" };
  const claim: KeyClaim = { merchantId, key, token: claimed.token };
  const takenOver = () => new AppError("IdempotencyInProgress", "Another request took this charge over.");
  const keyed: KeyedEffect<TokenCharge> = {
    async answered(trx, charge) {
      const body = JSON.stringify({ checkoutReference: charge.payment.checkoutReference });
      if (!(await storeAnswerWithEffect(trx, claim, 303, body))) throw takenOver();
      claim.answeredWithEffect = true;
    },
    async started(trx, chargeReference) {
      if (!(await markKeyAppliedToCharge(trx, claim, chargeReference))) throw takenOver();
    },
  };
  try {
    const charge = await chargeSavedCard(deps, merchantId, actor, input, keyed);
    return { kind: "charged", checkoutReference: charge.payment.checkoutReference };
  } catch (error) {
    // A refusal before the charge was recorded (bad amount, disabled card) leaves the attempt free to correct.
    if (!claim.answeredWithEffect) await releaseIdempotencyKey(deps.db, claim);
    throw error;
  }
}
