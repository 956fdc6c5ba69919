// Chargebacks and disputes on payments (docs/processors.md#disputes): each step a processor reported,
// kept once, and the disputes they make up. A dispute stands where its latest step (by the
// processor's time) put it, whatever order the steps arrived in.
import type { Kysely } from "kysely";
import type { DisputeStatus } from "../payments/hosted.ts";
import type { DB } from "./schema.ts";

export interface DisputeStep {
  terminalIdentifier: string;
  eventReference: string;
  merchantId: string;
  disputeReference: string;
  payfacReference: string;
  status: DisputeStatus;
  processorEvent: string;
  amount: number | null;
  currency: string | null;
  reason: string;
  occurredAt: Date;
}

/** A dispute as its steps make it up: the latest step's status, event, amount and reason. */
export interface Dispute {
  disputeReference: string;
  status: DisputeStatus;
  processorEvent: string;
  amount: number | null;
  currency: string | null;
  reason: string;
  /** When its first step happened. */
  openedAt: Date;
  /** When its latest step happened. */
  updatedAt: Date;
}

/** Keeps a step; false when it was kept before (the processor sent it again). */
export async function recordDisputeStep(trx: Kysely<DB>, step: DisputeStep): Promise<boolean> {
  const inserted = await trx
    .insertInto("dispute_steps")
    .values({
      terminal_identifier: step.terminalIdentifier,
      event_reference: step.eventReference,
      merchant_id: step.merchantId,
      dispute_reference: step.disputeReference,
      payfac_reference: step.payfacReference,
      status: step.status,
      processor_event: step.processorEvent,
      amount: step.amount,
      currency: step.currency,
      reason: step.reason,
      occurred_at: step.occurredAt,
    })
    .onConflict((conflict) => conflict.columns(["terminal_identifier", "event_reference"]).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Whether no other step of the step's dispute happened later: then it decides where the dispute stands. */
export async function isLatestStep(trx: Kysely<DB>, step: DisputeStep): Promise<boolean> {
  const later = await trx
    .selectFrom("dispute_steps")
    .select("event_reference")
    .where("terminal_identifier", "=", step.terminalIdentifier)
    .where("dispute_reference", "=", step.disputeReference)
    .where("occurred_at", ">", step.occurredAt)
    .executeTakeFirst();
  return later === undefined;
}

/** The disputes on a merchant's payment, the first opened first. */
export async function disputesOf(db: Kysely<DB>, merchantId: string, payfacReference: string): Promise<Dispute[]> {
  const steps = await db
    .selectFrom("dispute_steps")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("payfac_reference", "=", payfacReference)
    // Equal times (a processor's clock counts seconds): the one recorded later is taken as later.
    .orderBy("occurred_at")
    .orderBy("recorded_at")
    .execute();
  const disputes = new Map<string, Dispute>();
  for (const step of steps) {
    const first = disputes.get(step.dispute_reference);
    disputes.set(step.dispute_reference, {
      disputeReference: step.dispute_reference,
      status: step.status as DisputeStatus,
      processorEvent: step.processor_event,
      amount: step.amount ?? first?.amount ?? null,
      currency: step.currency ?? first?.currency ?? null,
      reason: step.reason || (first?.reason ?? ""),
      openedAt: first?.openedAt ?? step.occurred_at,
      updatedAt: step.occurred_at,
    });
  }
  return [...disputes.values()];
}

/** Which of a merchant's payments have a dispute, of those named. */
export async function disputedPayments(db: Kysely<DB>, merchantId: string, payfacReferences: readonly string[]): Promise<Set<string>> {
  if (payfacReferences.length === 0) return new Set();
  const rows = await db
    .selectFrom("dispute_steps")
    .select("payfac_reference")
    .distinct()
    .where("merchant_id", "=", merchantId)
    .where("payfac_reference", "in", payfacReferences)
    .execute();
  return new Set(rows.map((row) => row.payfac_reference));
}
