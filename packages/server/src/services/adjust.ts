// Adjust a pre-authorisation (docs/api.md#capture-and-adjust): before any capture, the authorised
// amount becomes the new total. Held like a capture (no capture, reversal or other adjustment while
// it is processed); the result arrives as an Adjustment webhook.

import type { KeyedEffect } from "../db/idempotency-repository.ts";
import type { Actor } from "../domain/audit/actor.ts";
import { type CaptureInput, captureOrAdjust } from "./capture.ts";
import type { AfterSaleServiceDeps } from "./deps.ts";
import type { ModificationReceipt } from "./modification.ts";

export function adjustPayment(
  deps: AfterSaleServiceDeps,
  merchantId: string,
  actor: Actor,
  input: CaptureInput,
  keyed?: KeyedEffect<ModificationReceipt>,
): Promise<ModificationReceipt> {
  return captureOrAdjust(deps, merchantId, actor, "adjustment", input, keyed);
}
