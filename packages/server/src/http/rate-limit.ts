// Rate limits: error 3002 (429 with Retry-After) on the API. Counters live in each instance's
// memory (@fastify/rate-limit's LRU store, fixed windows): with N instances behind a load balancer
// a client can reach up to N times a limit. That is the usual trade for not writing to the
// database on every request; the limits are a brake on abuse, not an accounting of it. The
// checkout's card-testing brake is counted in the database instead (checkout/brake.ts): it must
// hold under concurrency, and it guards the processor.
import { createHash } from "node:crypto";
import rateLimit, { normalizeIP } from "@fastify/rate-limit";
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import { AppError } from "../domain/errors.ts";

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

/** onRequest hook for /api/v1: counts every request against its API key (or address, without one). */
export function apiRateLimit(app: FastifyInstance, perMinute: number): onRequestAsyncHookHandler | undefined {
  if (perMinute <= 0) return undefined;
  return app.rateLimit({
    max: perMinute,
    timeWindow: 60_000,
    // A hash, so the LRU never holds a usable key; without a key the caller's address counts.
    keyGenerator: (request) => {
      const key = request.headers["x-api-key"];
      return typeof key === "string" && key !== "" ? `api:${digest(key)}` : `api-ip:${clientKey(request)}`;
    },
    errorResponseBuilder: (_request, context) => {
      const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
      return new AppError(
        "RateLimited",
        `Too many requests: at most ${context.max} per minute for one API key. Retry after ${seconds} seconds.`,
        {
          "retry-after": String(seconds),
        },
      );
    },
  }) as onRequestAsyncHookHandler;
}

/**
 * The client's address as the limits count it: IPv6 by its /64 (one customer's network), since a
 * single host commonly holds a whole /64 and could otherwise take a fresh address per request.
 */
export function clientKey(request: FastifyRequest): string {
  return normalizeIP(request.ip, 64);
}

/** Failed API-key checks per client address per minute before 429 (a key-guessing flood). */
export const AUTH_FAILURES_PER_MINUTE = 30;

/**
 * Every random key gets a fresh per-key counter, so the per-key limit alone would let a flood of
 * made-up keys reach the database. Failed authentications are also counted per address.
 */
export function authFailureBrake(app: FastifyInstance, enabled: boolean): FailureBrake {
  if (!enabled) return NO_BRAKE;
  const limiter = app.createRateLimit({
    max: AUTH_FAILURES_PER_MINUTE,
    timeWindow: 60_000,
    keyGenerator: (request) => `auth:${clientKey(request)}`,
  });
  return brakeOf(limiter);
}

type Limiter = ReturnType<FastifyInstance["createRateLimit"]>;

/** A brake that never holds anyone back (the limit is turned off). */
const NO_BRAKE: FailureBrake = { blockedFor: async () => 0, recordFailure: async () => {} };

function brakeOf(limiter: Limiter): FailureBrake {
  return {
    async blockedFor(request) {
      const state = await limiter(request, { increment: false });
      if (state.isAllowed || state.remaining > 0) return 0;
      return Math.max(1, Math.ceil(state.ttl / 1000));
    },
    async recordFailure(request) {
      await limiter(request);
    },
  };
}

export interface FailureBrake {
  /** Seconds until the client may try again, or 0 when it may try now. */
  blockedFor(request: FastifyRequest): Promise<number>;
  /** Counts one failed attempt (a decline or a rejected form). */
  recordFailure(request: FastifyRequest): Promise<void>;
}
