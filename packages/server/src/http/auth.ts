// API-key authentication for /api/v1 (docs/api.md): header X-API-key, keys stored as SHA-256.
// A callback hook (docs/decisions.md#speed-is-guarded): a known key in a trusted cache from an address the brake does not hold
// is accepted without a promise or a statement; everything else takes the asynchronous way.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import type { CachedApiKey } from "../db/api-key-cache.ts";
import { apiKeyCacheOf } from "../db/api-key-cache.ts";
import type { Database } from "../db/connect.ts";
import { findApiKeyByHash } from "../db/merchants-repository.ts";
import { AppError } from "../domain/errors.ts";
import { hashApiKey } from "../ids.ts";
import { type AuthBrake, NO_AUTH_BRAKE } from "./auth-brake.ts";
import { clientKey } from "./rate-limit.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the API-key check on every authenticated route. */
    merchantId: string;
    /** The key that authenticated the request (its id and prefix): "who" in the audit log. */
    apiKey: { keyId: string; keyPrefix: string };
  }
}

const API_KEY_SHAPE = /^plk_[0-9A-Za-z]{32}$/;

/** What one look-up of a key this instance does not know found. */
type Lookup = { kind: "found"; key: CachedApiKey } | { kind: "unknown" } | { kind: "braked"; retryAfterSeconds: number };

export function apiKeyAuth(db: Database, brake: AuthBrake = NO_AUTH_BRAKE) {
  const cache = apiKeyCacheOf(db);
  // Look-ups of an unknown key in flight, per address and key: requests sending the same key at
  // once share one look-up and one place in the brake, so a client's first burst with a good key
  // is not braked as if each request were a guess.
  const lookups = new Map<string, Promise<Lookup>>();

  /** The look-up of a key this instance does not know, its place in the brake taken first. */
  async function lookUpUnknown(request: FastifyRequest, keyHash: string): Promise<Lookup> {
    const slot = await brake.take(request);
    if (slot.blocked) return { kind: "braked", retryAfterSeconds: slot.retryAfterSeconds };
    let key: CachedApiKey | undefined;
    try {
      key = await findApiKeyByHash(db, keyHash);
    } catch (error) {
      // Nothing was learnt about the key (the database is away): its place is given back.
      await slot.finish(false);
      throw error;
    }
    await slot.finish(key === undefined);
    return key === undefined ? { kind: "unknown" } : { kind: "found", key };
  }

  async function authenticateAsync(request: FastifyRequest, apiKey: string | undefined, keyHash: string | undefined) {
    const refused = new AppError(
      "Unauthenticated",
      apiKey ? "The API key is unknown or has been revoked." : "Send your API key in the X-API-key header.",
    );
    if (keyHash !== undefined && cache.get(keyHash) !== undefined) {
      // A key this instance has found before is no guess: it needs the cache confirmed or "last
      // used" written, not a place in the brake. Revoked meanwhile, it counts like any wrong key.
      const key = await findApiKeyByHash(db, keyHash);
      if (key !== undefined) {
        authenticated(request, key);
        return;
      }
      await countFailure(request);
      throw refused;
    }
    if (keyHash === undefined) {
      // A missing or malformed key costs no look-up, but counts.
      await countFailure(request);
      throw refused;
    }
    const id = `${clientKey(request)}|${keyHash}`;
    let lookup = lookups.get(id);
    const shared = lookup !== undefined;
    if (lookup === undefined) {
      lookup = lookUpUnknown(request, keyHash).finally(() => lookups.delete(id));
      lookups.set(id, lookup);
    }
    const found = await lookup;
    if (found.kind === "braked") throw braked(found.retryAfterSeconds);
    if (found.kind === "found") {
      authenticated(request, found.key);
      return;
    }
    // A request that shared another's look-up of a wrong key cost none, but still counts as one.
    if (shared) await countFailure(request);
    throw refused;
  }

  /** Counts a wrong key whose answer needed no look-up of its own. */
  async function countFailure(request: FastifyRequest) {
    const slot = await brake.take(request);
    if (slot.blocked) throw braked(slot.retryAfterSeconds);
    await slot.finish(true);
  }

  return function authenticate(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const apiKey = apiKeyOf(request);
    // Hashed once, for the cache and for the lookup; a malformed key never costs a hash or a statement.
    const keyHash = apiKey !== undefined && API_KEY_SHAPE.test(apiKey) ? hashApiKey(apiKey) : undefined;
    // An address that keeps sending wrong keys is stopped before any lookup, whatever key it sends.
    const blocked = brake.blockedForNow(request);
    if (blocked > 0) {
      done(braked(blocked));
      return;
    }
    if (keyHash !== undefined) {
      const key = cache.keyWithoutStatement(keyHash);
      if (key !== undefined) {
        authenticated(request, key);
        done();
        return;
      }
    }
    authenticateAsync(request, apiKey, keyHash).then(() => done(), done);
  };
}

function authenticated(request: FastifyRequest, key: CachedApiKey): void {
  request.merchantId = key.merchantId;
  request.apiKey = { keyId: key.keyId, keyPrefix: key.keyPrefix };
}

function braked(seconds: number): AppError {
  return new AppError(
    "RateLimited",
    `Too many requests with a missing or wrong API key from this address. Retry after ${seconds} seconds.`,
    {
      "retry-after": String(seconds),
    },
  );
}

function apiKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers["x-api-key"];
  return (Array.isArray(header) ? header[0] : header) || undefined;
}
