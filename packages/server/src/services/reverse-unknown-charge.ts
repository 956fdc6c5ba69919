// Saved-card charges whose outcome Paylink never learnt (a lost reply, a timeout, a process that
// died between the charge and its result). Like the checkout's rule: such a charge never becomes a
// payment. It is reversed at the processor by its checkoutReference, and only once the processor
// confirms, it is recorded as failed (no payfacReference, no webhook).
import pTimeout from "p-timeout";
import { releaseKeyOfReversedCharge } from "../db/idempotency-repository.ts";
import { findTokenPayment, recordTokenPayment } from "../db/token-payments-repository.ts";
import type { RecurringProcessingModel } from "../domain/links/types.ts";
import { errorName } from "../payments/error-name.ts";
import type { AfterSaleServiceDeps } from "./deps.ts";
import { afterAuthenticationUrl } from "./shopper-authentication.ts";

const REVERSE_TIMEOUT_MS = 10_000;

/** True once the processor confirmed the reversal and the charge is recorded as failed. Never throws. */
export async function reverseUnknownCharge(deps: AfterSaleServiceDeps, checkoutReference: string): Promise<boolean> {
  try {
    const charge = await findTokenPayment(deps.db, checkoutReference);
    if (!charge) throw new Error(`no saved-card charge ${checkoutReference}`);
    const processor = await deps.processors.afterSaleFor(charge.terminalIdentifier, deps.processor);
    // The request as it was sent: the live gateway finds a lost charge only by replaying it.
    const request = {
      token: charge.token,
      card: {
        brand: charge.cardBrand ?? "",
        masked: charge.cardMasked ?? "",
        last4: charge.cardLast4 ?? "",
        expiry: charge.cardExpiry ?? "",
        usage: charge.cardUsage,
      },
      amount: charge.amount,
      currency: charge.currency,
      recurringProcessingModel: charge.recurringProcessingModel as RecurringProcessingModel | null,
      checkoutReference,
      merchantReference: charge.merchantReference,
      // Part of the request too: a replay under the same key must be the same request.
      returnUrl: afterAuthenticationUrl(deps.publicBaseUrl, charge),
    };
    await pTimeout(processor.reverseCharge(checkoutReference, request), { milliseconds: REVERSE_TIMEOUT_MS });
    // Nothing was charged: the Idempotency-Key that waited on this charge may run anew (docs/api.md#idempotency).
    await recordTokenPayment(deps.db, checkoutReference, { kind: "failed", reason: "Processor unavailable" }, (trx) =>
      releaseKeyOfReversedCharge(trx, checkoutReference),
    );
    return true;
  } catch (error) {
    deps.log.error(
      { checkoutReference, error: errorName(error) },
      "could not reverse a saved-card charge with an unknown outcome; it stays pending and the reconciler tries again",
    );
    return false;
  }
}
