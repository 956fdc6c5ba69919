// Idempotency-Key on POST (docs/api.md#idempotency): the first response to a key is stored and replayed for
// the same body; a different body is refused (3004); a concurrent duplicate gets 409 (3007). An
// operation with an effect stores its answer in the transaction of that effect (keyedEffect), so no
// crash or database blip between the two can let a retry do it twice (docs/decisions.md#idempotency-keys).
import { createHash, randomUUID } from "node:crypto";
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import type { Database } from "../db/connect.ts";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  type KeyClaim,
  type KeyedEffect,
  markKeyAppliedToCharge,
  releaseIdempotencyKey,
  storeAnswerWithEffect,
} from "../db/idempotency-repository.ts";
import { AppError } from "../domain/errors.ts";

declare module "fastify" {
  interface FastifyRequest {
    idempotencyClaim?: KeyClaim;
  }
}

export function idempotency(db: Database) {
  const unreleased = pendingReleases(db);

  /** preHandler: runs after authentication and validation, before the operation. */
  async function checkIdempotencyKey(request: FastifyRequest, reply: FastifyReply) {
    const header = request.headers["idempotency-key"];
    if (header === undefined) return;
    const key = Array.isArray(header) ? header[0]! : header;
    if (key.length === 0) throw new AppError("RequiredFieldMissing", "The Idempotency-Key header is empty.");
    if (key.length > 255) throw new AppError("TooLong", "The Idempotency-Key header is too long: at most 255 characters.");

    const requestHash = createHash("sha256")
      .update(`${request.method} ${request.routeOptions.url}\n${canonicalJson(request.body ?? null)}`)
      .digest("hex");
    // A claim of this key whose release is still owed (the database was away) goes first.
    await unreleased.settle(request.merchantId, key);
    // A claim whose answer was lost (the connection dropped after its commit) is released like any other.
    const token = randomUUID();
    const claim = await claimIdempotencyKey(db, request.merchantId, key, requestHash, token).catch((error: unknown) => {
      unreleased.add({ merchantId: request.merchantId, key, token });
      throw error;
    });
    if (claim.outcome !== "claimed" && claim.requestHash !== requestHash) {
      throw new AppError(
        "IdempotencyKeyReused",
        "This Idempotency-Key was already used with a different request body; use a new key for a new request.",
      );
    }
    if (claim.outcome === "running") {
      throw new AppError("IdempotencyInProgress", "A request with this Idempotency-Key is still being processed; retry in a moment.");
    }
    if (claim.outcome === "done") {
      return reply.code(claim.status).header("idempotent-replayed", "true").type("application/json; charset=utf-8").send(claim.body);
    }
    request.idempotencyClaim = { merchantId: request.merchantId, key, token: claim.token };
  }

  /**
   * onSend: store the first response unless the operation's effect already stored it; forget the
   * key if we failed before any effect, so a retry can succeed. Both only touch a key still
   * 'running' under this request's claim: an answer committed with an effect, or a saved-card
   * charge in flight ('applied'), is never replaced. This never fails the answer: when the
   * database is away the claim is released as soon as it is back (pendingReleases).
   */
  async function storeResponse(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const claim = request.idempotencyClaim;
    if (claim === undefined) return payload;
    request.idempotencyClaim = undefined;
    if (claim.answeredWithEffect && reply.statusCode < 500) return payload;
    try {
      if (reply.statusCode >= 500) await releaseIdempotencyKey(db, claim);
      else await completeIdempotencyKey(db, claim, reply.statusCode, String(payload));
    } catch (error) {
      request.log.warn({ err: error }, "idempotency key not settled; it is released when the database answers");
      unreleased.add(claim);
    }
    return payload;
  }

  // The hooks as POST routes run them: callbacks, so a request without the header, and a response
  // with no claim to settle, pass without a promise or a microtask turn each (docs/decisions.md#speed-is-guarded).
  function preHandler(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    if (request.headers["idempotency-key"] === undefined) done();
    else checkIdempotencyKey(request, reply).then(() => done(), done);
  }

  function onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) {
    if (request.idempotencyClaim === undefined) done(null, payload);
    else storeResponse(request, reply, payload).then((stored) => done(null, stored), done);
  }

  return { preHandler, onSend };
}

/** How often a release owed to the database is tried again while it does not answer. */
const RELEASE_RETRY_MS = 1000;

/**
 * Claims of requests that ended while the database was away. Their effects rolled back (an effect
 * commits with its key), so each key may run again: it is released as soon as the database answers,
 * not after the abandoned-claim timeout, and a retry of the same key on this instance settles it first.
 */
function pendingReleases(db: Database) {
  const claims = new Set<KeyClaim>();
  let scheduled = false;

  async function releaseAll(): Promise<void> {
    for (const claim of claims) {
      await releaseIdempotencyKey(db, claim);
      claims.delete(claim);
    }
  }
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => {
      scheduled = false;
      releaseAll().catch(schedule);
    }, RELEASE_RETRY_MS).unref();
  }
  return {
    add(claim: KeyClaim) {
      claims.add(claim);
      schedule();
    },
    /** Before a claim of this key: release its owed claim now (a database still away fails the request as usual). */
    async settle(merchantId: string, key: string): Promise<void> {
      for (const claim of claims) {
        if (claim.merchantId !== merchantId || claim.key !== key) continue;
        await releaseIdempotencyKey(db, claim);
        claims.delete(claim);
      }
    },
  };
}

/**
 * The answer of an operation with an effect, bound to the request's key: `effect` goes to the
 * operation, which calls it inside its transactions; `body(result)` is what the handler returns —
 * the very object stored with the effect (same responseDateTime), so a replay matches the first
 * answer. Without an Idempotency-Key, `effect` is undefined and nothing more is written.
 */
export function keyedAnswer<T, B>(
  request: FastifyRequest,
  reply: FastifyReply,
  present: (result: T) => B,
): { effect: KeyedEffect<T> | undefined; body(result: T): B } {
  let stored: { body: B } | undefined;
  const claim = request.idempotencyClaim;
  const takenOver = () =>
    new AppError("IdempotencyInProgress", "Another request with this Idempotency-Key took it over; retry to get its answer.");
  const effect: KeyedEffect<T> | undefined = claim && {
    async answered(trx, result) {
      const body = present(result);
      if (!(await storeAnswerWithEffect(trx, claim, reply.statusCode, String(reply.serialize(body))))) throw takenOver();
      stored = { body };
      // Called last in the effect's transaction: if its commit fails, the request ends in a 5xx,
      // and the release below finds the key running again.
      claim.answeredWithEffect = true;
    },
    async started(trx, chargeReference) {
      if (!(await markKeyAppliedToCharge(trx, claim, chargeReference))) throw takenOver();
    },
  };
  return { effect, body: (result) => (stored ? stored.body : present(result)) };
}

/**
 * JSON with the keys of every object sorted (arrays keep their order), so that the same body sent
 * with its fields in another order hashes the same: JSON objects are unordered, and docs/api.md#idempotency
 * replays "the same body". Nesting is bounded (2009 beyond 32 levels) before this runs.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, node: unknown) => {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
    const object = node as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(object)
        .sort()
        .map((key) => [key, object[key]]),
    );
  });
}
