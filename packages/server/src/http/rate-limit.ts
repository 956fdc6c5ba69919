// Rate limits: error 3002 (429 with Retry-After) on the API. The API limit per key is shared by
// every instance on PostgreSQL (atomic upserts claiming requests in batches, docs/decisions.md#rate-limits); on the embedded database
// (one process) it lives in memory (@fastify/rate-limit's LRU store, fixed windows). The
// checkout's card-testing brake is counted in the database (checkout/brake.ts): it must hold
// under concurrency, and it guards the processor.
import { createHash } from "node:crypto";
import rateLimit, { normalizeIP } from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onRequestHookHandler } from "fastify";
import type { Database } from "../db/connect.ts";
import { AppError } from "../domain/errors.ts";
import { type Admission, SharedApiLimit } from "./shared-api-limit.ts";

export interface RateLimits {
  /** Requests per minute per API key on /api/v1 (keys are told apart by a hash). 0 turns it off. */
  apiPerMinute: number;
  /**
   * Failed payment attempts (declined cards, rejected forms) per client address and link within
   * `checkoutWindowMs`; after that the form answers 429 until the window ends. Attempts still at
   * the processor count until they are answered, so posts sent at once cannot pass the limit
   * together. Successful payments never count. 0 turns it off (checkout/brake.ts).
   */
  checkoutFailures: number;
  checkoutWindowMs: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { apiPerMinute: 1200, checkoutFailures: 10, checkoutWindowMs: 15 * 60 * 1000 };

/** Limits off: for tests and embedded uses that build an app without configuration. */
export const NO_RATE_LIMITS: RateLimits = { apiPerMinute: 0, checkoutFailures: 0, checkoutWindowMs: 1 };

/** Registers the shared store once, at the root; the API and the checkout make their limiters from it. */
export async function registerRateLimitStore(app: FastifyInstance): Promise<void> {
  await app.register(rateLimit, { global: false, cache: 20_000 });
}

function digest(value: string): string {
  return createHash("sha256").update(value).digest("base64url").slice(0, 22);
}

/**
 * onRequest hook for /api/v1: counts every request against its API key (or address, without one).
 * In this instance's memory, unless a database is given to share the count with every instance on
 * it (PostgreSQL: sharedApiRateLimit below).
 */
export function apiRateLimit(
  app: FastifyInstance,
  perMinute: number,
  shared?: Database,
): onRequestHookHandler | onRequestAsyncHookHandler | undefined {
  if (perMinute <= 0) return undefined;
  if (shared) return sharedApiRateLimit(shared, perMinute);
  return app.rateLimit({
    max: perMinute,
    timeWindow: 60_000,
    keyGenerator: apiLimitKey,
    errorResponseBuilder: (_request, context) => apiRateLimited(context.max, context.ttl),
  }) as onRequestAsyncHookHandler;
}

/**
 * The API limit per key counted in the database every instance shares (docs/decisions.md#rate-limits): N instances
 * behind a load balancer allow the limit once, not N times. Counted in batches (http/shared-api-limit.ts);
 * the answer and headers are those of the in-memory limiter.
 */
function sharedApiRateLimit(db: Database, perMinute: number): onRequestHookHandler {
  const limit = new SharedApiLimit(db, perMinute);
  const answer = (reply: FastifyReply, admission: Admission): AppError | undefined => {
    reply.header("x-ratelimit-limit", String(perMinute));
    reply.header("x-ratelimit-remaining", String(admission.admitted ? admission.remaining : 0));
    reply.header("x-ratelimit-reset", String(Math.ceil(admission.resetMs / 1000)));
    return admission.admitted ? undefined : apiRateLimited(perMinute, admission.resetMs);
  };
  // A callback hook (docs/decisions.md#speed-is-guarded): a unit this instance already claimed is taken without a promise.
  return function sharedLimit(request, reply, done) {
    const key = apiLimitKey(request);
    const known = limit.admitNow(key);
    if (known !== undefined) return done(answer(reply, known));
    // A database that is away fails a claim like any other query: 503 5003 (http/errors.ts).
    limit.admit(key).then((admission) => done(answer(reply, admission)), done);
  };
}

/** The counter of a request: a hash of its API key (never a usable key in memory or a table), or its address without one. */
export function apiLimitKey(request: FastifyRequest): string {
  const key = request.headers["x-api-key"];
  return typeof key === "string" && key !== "" ? `api:${digest(key)}` : `api-ip:${clientKey(request)}`;
}

/** Error 3002 of the API limit, with the seconds until the window ends. */
export function apiRateLimited(max: number, ttlMs: number): AppError {
  const seconds = Math.max(1, Math.ceil(ttlMs / 1000));
  return new AppError("RateLimited", `Too many requests: at most ${max} per minute for one API key. Retry after ${seconds} seconds.`, {
    "retry-after": String(seconds),
  });
}

/**
 * The client's address as the limits count it: IPv6 by its /64 (one customer's network), since a
 * single host commonly holds a whole /64 and could otherwise take a fresh address per request.
 */
export function clientKey(request: FastifyRequest): string {
  return normalizeIP(request.ip, 64);
}
