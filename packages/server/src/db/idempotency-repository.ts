// Stored answers of POSTs sent with an Idempotency-Key (docs/api.md#idempotency). A key is claimed
// 'running' before the operation, with a token of its own; the operation's effect then writes the
// answer in its own transaction (state 'done'), or, for a saved-card charge whose answer is not in
// yet, marks the key 'applied'. A key never drifts from the effect it stands for (docs/decisions.md#idempotency-keys).
import { randomUUID } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type { Database } from "./connect.ts";
import type { DB } from "./schema.ts";

export type IdempotencyClaim =
  | { outcome: "claimed"; token: string }
  /** Still running, or (applied) its effect is under way with an outcome not known yet. */
  | { outcome: "running"; requestHash: string }
  | { outcome: "done"; requestHash: string; status: number; body: string };

/** A claim of this request: the key and the token that proves the claim is still its own. */
export interface KeyClaim {
  merchantId: string;
  key: string;
  token: string;
  /** Set once the operation's effect stored the answer: nothing is left to store after the fact. */
  answeredWithEffect?: boolean;
}

/**
 * A running claim older than this is from a process that died before its effect committed (an
 * effect commits with the key, so a running key has none): take it over. The token fences the old
 * request, should it be alive after all: its effect's transaction then fails.
 */
const ABANDONED_AFTER_SECONDS = 120;

/**
 * `token` is chosen by the caller so that, when the database goes away before the claim's answer
 * arrives, the caller can still release whatever claim was made with it.
 */
export async function claimIdempotencyKey(
  db: Database,
  merchantId: string,
  key: string,
  requestHash: string,
  token: string = randomUUID(),
): Promise<IdempotencyClaim> {
  const inserted = await db
    .insertInto("idempotency_keys")
    .values({ merchant_id: merchantId, key, request_hash: requestHash, response_status: null, response_body: null, claim_token: token })
    .onConflict((oc) => oc.columns(["merchant_id", "key"]).doNothing())
    .returning("key")
    .executeTakeFirst();
  if (inserted) return { outcome: "claimed", token };

  const takenOver = await db
    .updateTable("idempotency_keys")
    .set({ created_at: new Date(), request_hash: requestHash, claim_token: token })
    .where("merchant_id", "=", merchantId)
    .where("key", "=", key)
    .where("state", "=", "running")
    .where("request_hash", "=", requestHash)
    .where("created_at", "<", sql<Date>`now() - make_interval(secs => ${ABANDONED_AFTER_SECONDS})`)
    .returning("key")
    .executeTakeFirst();
  if (takenOver) return { outcome: "claimed", token };

  const row = await db
    .selectFrom("idempotency_keys")
    .select(["state", "request_hash", "response_status", "response_body"])
    .where("merchant_id", "=", merchantId)
    .where("key", "=", key)
    .executeTakeFirst();
  if (!row) return claimIdempotencyKey(db, merchantId, key, requestHash, token); // released between the two queries
  if (row.state === "done" && row.response_status !== null && row.response_body !== null) {
    return { outcome: "done", requestHash: row.request_hash, status: row.response_status, body: row.response_body };
  }
  return { outcome: "running", requestHash: row.request_hash };
}

/**
 * In the transaction of the operation's effect: the answer the request gets. False when the claim
 * is no longer this request's (taken over): the caller must roll the effect back.
 */
export async function storeAnswerWithEffect(trx: Kysely<DB>, claim: KeyClaim, status: number, body: string): Promise<boolean> {
  const row = await trx
    .updateTable("idempotency_keys")
    .set({ state: "done", response_status: status, response_body: body, charge_reference: null })
    .where("merchant_id", "=", claim.merchantId)
    .where("key", "=", claim.key)
    .where("claim_token", "=", claim.token)
    .where("state", "in", ["running", "applied"])
    .returning("key")
    .executeTakeFirst();
  return row !== undefined;
}

/** In the transaction that records a saved-card charge pending: the key waits on that charge. False as above. */
export async function markKeyAppliedToCharge(trx: Kysely<DB>, claim: KeyClaim, chargeReference: string): Promise<boolean> {
  const row = await trx
    .updateTable("idempotency_keys")
    .set({ state: "applied", charge_reference: chargeReference })
    .where("merchant_id", "=", claim.merchantId)
    .where("key", "=", claim.key)
    .where("claim_token", "=", claim.token)
    .where("state", "=", "running")
    .returning("key")
    .executeTakeFirst();
  return row !== undefined;
}

/** In the transaction that records a charge failed and reversed (nothing charged): its key may run again (docs/decisions.md#saved-cards). */
export async function releaseKeyOfReversedCharge(trx: Kysely<DB>, chargeReference: string): Promise<void> {
  await trx.deleteFrom("idempotency_keys").where("charge_reference", "=", chargeReference).where("state", "=", "applied").execute();
}

/** An answer no effect wrote (a refusal, a read-only outcome): stored after the fact, as before. */
export async function completeIdempotencyKey(db: Database, claim: KeyClaim, status: number, body: string): Promise<void> {
  await db
    .updateTable("idempotency_keys")
    .set({ state: "done", response_status: status, response_body: body })
    .where("merchant_id", "=", claim.merchantId)
    .where("key", "=", claim.key)
    .where("claim_token", "=", claim.token)
    .where("state", "=", "running")
    .execute();
}

/** A failed attempt (5xx) whose effect never committed leaves no trace, so the client's retry runs again. */
export async function releaseIdempotencyKey(db: Database, claim: KeyClaim): Promise<void> {
  await db
    .deleteFrom("idempotency_keys")
    .where("merchant_id", "=", claim.merchantId)
    .where("key", "=", claim.key)
    .where("claim_token", "=", claim.token)
    .where("state", "=", "running")
    .execute();
}

/** Keys are kept at least 24 hours (docs/api.md#idempotency); older ones are removed by maintenance. */
export async function deleteExpiredIdempotencyKeys(db: Database, olderThanHours = 48): Promise<number> {
  const result = await db
    .deleteFrom("idempotency_keys")
    .where("created_at", "<", sql<Date>`now() - make_interval(hours => ${olderThanHours})`)
    .where("state", "!=", "applied")
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * What an operation calls inside its own transactions so that its Idempotency-Key's answer commits
 * or rolls back with its effect. Undefined when the request carries no key.
 */
export interface KeyedEffect<T> {
  /** The effect is being committed and its answer is known: store the answer with it. */
  answered(trx: Kysely<DB>, result: T): Promise<void>;
  /** A saved-card charge is recorded pending: the key waits on it until its outcome is known. */
  started(trx: Kysely<DB>, chargeReference: string): Promise<void>;
}
