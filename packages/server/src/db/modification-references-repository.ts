// A real processor answers a refund, reversal, capture or adjustment with "received" and its own
// reference of it; the final result comes later in a notification naming that reference. These
// keep the reference with Paylink's record and find the record again for the notification.
// A modification with a processor reference is no longer asked again by the sweeps: its
// notification decides it.
import type { Kysely } from "kysely";
import { type CaptureRecord, toCapture } from "./captures-repository.ts";
import { type RefundRecord, toRefund } from "./refunds-repository.ts";
import type { DB } from "./schema.ts";

export type ModificationAt = { kind: "refund"; refund: RefundRecord } | { kind: "capture"; capture: CaptureRecord };

/** Keeps the processor's reference of a modification it received, also when its notification already decided it. */
export async function recordModificationReceived(
  db: Kysely<DB>,
  modification: { kind: "refund" | "reversal" | "capture" | "adjustment"; payfacReference: string },
  processorReference: string,
): Promise<void> {
  if (modification.kind === "refund" || modification.kind === "reversal") {
    await db
      .updateTable("refunds")
      .set({ processor_reference: processorReference })
      .where("payfac_reference", "=", modification.payfacReference)
      .where("processor_reference", "is", null)
      .execute();
  } else {
    await db
      .updateTable("captures")
      .set({ processor_reference: processorReference })
      .where("payfac_reference", "=", modification.payfacReference)
      .where("processor_reference", "is", null)
      .execute();
  }
}

/**
 * The modification a processor's notification names — by Paylink's own reference when the
 * processor echoes it, otherwise (or when what it echoes is not one: Adyen's merchantReference is
 * the payment's for a modification made in its Customer Area) by the processor's — of any
 * merchant: the caller checks whose payment it is.
 */
export async function findModificationAt(
  db: Kysely<DB>,
  names: { paylinkReference: string | null; processorReference: string },
): Promise<ModificationAt | undefined> {
  const lookups = [
    ...(names.paylinkReference !== null ? [["payfac_reference", names.paylinkReference] as const] : []),
    ["processor_reference", names.processorReference] as const,
  ];
  for (const [column, value] of lookups) {
    const refund = await db.selectFrom("refunds").selectAll().where(column, "=", value).executeTakeFirst();
    if (refund) return { kind: "refund", refund: toRefund(refund) };
    const capture = await db.selectFrom("captures").selectAll().where(column, "=", value).executeTakeFirst();
    if (capture) return { kind: "capture", capture: toCapture(capture) };
  }
  return undefined;
}

/**
 * Whether a modification of this payment was sent to the processor and its answer is not yet
 * recorded: a notification that names none of Paylink's references may be about that one.
 */
export async function awaitsProcessorAnswer(db: Kysely<DB>, originalPayfacReference: string): Promise<boolean> {
  const refund = await db
    .selectFrom("refunds")
    .select("payfac_reference")
    .where("original_payfac_reference", "=", originalPayfacReference)
    .where("state", "=", "pending")
    .where("processor_reference", "is", null)
    .executeTakeFirst();
  if (refund) return true;
  const capture = await db
    .selectFrom("captures")
    .select("payfac_reference")
    .where("original_payfac_reference", "=", originalPayfacReference)
    .where("state", "in", ["reserved", "unknown"])
    .where("processor_reference", "is", null)
    .executeTakeFirst();
  return capture !== undefined;
}
