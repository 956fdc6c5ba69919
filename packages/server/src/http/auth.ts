// API-key authentication for /api/v1 (docs/api.md): header X-API-key, keys stored as SHA-256.
// A callback hook (docs/decisions.md#speed-is-guarded): a known key in a trusted cache from an address the brake does not hold
// is accepted without a promise or a statement; everything else takes the asynchronous way.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { apiKeyCacheOf } from "../db/api-key-cache.ts";
import type { Database } from "../db/connect.ts";
import { findMerchantIdByKeyHash } from "../db/merchants-repository.ts";
import { AppError } from "../domain/errors.ts";
import { hashApiKey } from "../ids.ts";
import type { FailureBrake } from "./rate-limit.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the API-key check on every authenticated route. */
    merchantId: string;
  }
}

const API_KEY_SHAPE = /^plk_[0-9A-Za-z]{32}$/;

export function apiKeyAuth(db: Database, failures?: FailureBrake) {
  const cache = apiKeyCacheOf(db);
  return function authenticate(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const apiKey = apiKeyOf(request);
    // Hashed once, for the cache and for the lookup; a malformed key never costs a hash or a statement.
    const keyHash = apiKey !== undefined && API_KEY_SHAPE.test(apiKey) ? hashApiKey(apiKey) : undefined;
    const blocked = failures === undefined ? 0 : failures.blockedForNow(request);
    if (blocked === 0 && keyHash !== undefined) {
      const merchantId = cache.merchantIdWithoutStatement(keyHash);
      if (merchantId !== undefined) {
        request.merchantId = merchantId;
        done();
        return;
      }
    }
    authenticateAsync(db, request, apiKey, keyHash, failures).then(() => done(), done);
  };
}

function apiKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers["x-api-key"];
  return (Array.isArray(header) ? header[0] : header) || undefined;
}

async function authenticateAsync(
  db: Database,
  request: FastifyRequest,
  apiKey: string | undefined,
  keyHash: string | undefined,
  failures?: FailureBrake,
) {
  // An address that keeps sending wrong keys is stopped before any lookup.
  const wait = failures ? await failures.blockedFor(request) : 0;
  if (wait > 0) {
    throw new AppError("RateLimited", `Too many requests with a missing or wrong API key from this address. Retry after ${wait} seconds.`, {
      "retry-after": String(wait),
    });
  }
  if (!apiKey) {
    await failures?.recordFailure(request);
    throw new AppError("Unauthenticated", "Send your API key in the X-API-key header.");
  }
  const merchantId = keyHash !== undefined ? await findMerchantIdByKeyHash(db, keyHash) : undefined;
  if (!merchantId) {
    await failures?.recordFailure(request);
    throw new AppError("Unauthenticated", "The API key is unknown or has been revoked.");
  }
  request.merchantId = merchantId;
}
