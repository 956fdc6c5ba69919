// Stored first responses of POSTs sent with an Idempotency-Key (docs/api.md#idempotency).
import { sql } from "kysely";
import type { Database } from "./connect.ts";

export type IdempotencyClaim =
  | { outcome: "claimed" }
  | { outcome: "running"; requestHash: string }
  | { outcome: "done"; requestHash: string; status: number; body: string };

/** A running claim older than this is from a process that died mid-request: take it over. */
const ABANDONED_AFTER_SECONDS = 120;

export async function claimIdempotencyKey(db: Database, merchantId: string, key: string, requestHash: string): Promise<IdempotencyClaim> {
  const inserted = await db
    .insertInto("idempotency_keys")
    .values({ merchant_id: merchantId, key, request_hash: requestHash, response_status: null, response_body: null })
    .onConflict((oc) => oc.columns(["merchant_id", "key"]).doNothing())
    .returning("key")
    .executeTakeFirst();
  if (inserted) return { outcome: "claimed" };

  const takenOver = await db
    .updateTable("idempotency_keys")
    .set({ created_at: new Date(), request_hash: requestHash })
    .where("merchant_id", "=", merchantId)
    .where("key", "=", key)
    .where("state", "=", "running")
    .where("request_hash", "=", requestHash)
    .where("created_at", "<", sql<Date>`now() - make_interval(secs => ${ABANDONED_AFTER_SECONDS})`)
    .returning("key")
    .executeTakeFirst();
  if (takenOver) return { outcome: "claimed" };

  const row = await db
    .selectFrom("idempotency_keys")
    .select(["state", "request_hash", "response_status", "response_body"])
    .where("merchant_id", "=", merchantId)
    .where("key", "=", key)
    .executeTakeFirst();
  if (!row) return claimIdempotencyKey(db, merchantId, key, requestHash); // expired between the two queries
  if (row.state === "done" && row.response_status !== null && row.response_body !== null) {
    return { outcome: "done", requestHash: row.request_hash, status: row.response_status, body: row.response_body };
  }
  return { outcome: "running", requestHash: row.request_hash };
}

export async function completeIdempotencyKey(db: Database, merchantId: string, key: string, status: number, body: string): Promise<void> {
  await db
    .updateTable("idempotency_keys")
    .set({ state: "done", response_status: status, response_body: body })
    .where("merchant_id", "=", merchantId)
    .where("key", "=", key)
    .execute();
}

/** A failed attempt (5xx) leaves no trace, so the client's retry with the same key runs again. */
export async function releaseIdempotencyKey(db: Database, merchantId: string, key: string): Promise<void> {
  await db
    .deleteFrom("idempotency_keys")
    .where("merchant_id", "=", merchantId)
    .where("key", "=", key)
    .where("state", "=", "running")
    .execute();
}

/** Keys are kept at least 24 hours (docs/api.md#idempotency); older ones are removed by maintenance. */
export async function deleteExpiredIdempotencyKeys(db: Database, olderThanHours = 48): Promise<number> {
  const result = await db
    .deleteFrom("idempotency_keys")
    .where("created_at", "<", sql<Date>`now() - make_interval(hours => ${olderThanHours})`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
