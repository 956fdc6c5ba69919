// Idempotency-Key on POST (docs/api.md#idempotency): the first response to a key is stored and replayed for
// the same body; a different body is refused (3004); a concurrent duplicate gets 409 (3007).
import { createHash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Database } from "../db/connect.ts";
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from "../db/idempotency-repository.ts";
import { AppError } from "../domain/errors.ts";

declare module "fastify" {
  interface FastifyRequest {
    idempotencyKey?: string;
  }
}

export function idempotency(db: Database) {
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
    const claim = await claimIdempotencyKey(db, request.merchantId, key, requestHash);
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
    request.idempotencyKey = key;
  }

  /** onSend: store the first response; forget the key if we failed, so a retry can succeed. */
  async function storeResponse(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const key = request.idempotencyKey;
    if (key === undefined) return payload;
    request.idempotencyKey = undefined;
    if (reply.statusCode >= 500) await releaseIdempotencyKey(db, request.merchantId, key);
    else await completeIdempotencyKey(db, request.merchantId, key, reply.statusCode, String(payload));
    return payload;
  }

  return { checkIdempotencyKey, storeResponse };
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
