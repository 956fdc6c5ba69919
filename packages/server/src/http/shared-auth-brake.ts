// The wrong-API-key brake shared by every instance on one PostgreSQL (docs/decisions.md#rate-limits): failed key checks
// are counted per client address in the same UNLOGGED counter table as the API limit, one upsert
// per failure and none for a good key. Each instance remembers, in memory, the addresses the
// shared count has blocked, so a blocked address is refused before any lookup, as in docs/decisions.md#rate-limits.
import type { FastifyRequest } from "fastify";
import type { Database } from "../db/connect.ts";
import { countRequest } from "../db/rate-counters-repository.ts";
import { AUTH_FAILURES_PER_MINUTE, clientKey, type FailureBrake } from "./rate-limit.ts";

/** Blocked addresses remembered at most; past it, ended blocks are dropped, then the oldest. */
const MAX_REMEMBERED = 10_000;

export function sharedAuthFailureBrake(db: Database): FailureBrake {
  /** Address → when its block ends (ms since the epoch, from the database window's end). */
  const blockedUntil = new Map<string, number>();
  const addressOf = (request: FastifyRequest) => `auth:${clientKey(request)}`;

  function remember(address: string, until: number) {
    if (blockedUntil.size >= MAX_REMEMBERED) {
      const now = Date.now();
      for (const [other, end] of blockedUntil) if (end <= now) blockedUntil.delete(other);
      if (blockedUntil.size >= MAX_REMEMBERED) blockedUntil.delete(blockedUntil.keys().next().value!);
    }
    blockedUntil.set(address, until);
  }

  function blockedForNow(request: FastifyRequest): number {
    const address = addressOf(request);
    const until = blockedUntil.get(address);
    if (until === undefined) return 0;
    const left = until - Date.now();
    if (left > 0) return Math.max(1, Math.ceil(left / 1000));
    blockedUntil.delete(address);
    return 0;
  }

  return {
    blockedForNow,
    blockedFor: async (request) => blockedForNow(request),
    async recordFailure(request) {
      // A database that is away fails this like any query: 503 5003 instead of the 401.
      const address = addressOf(request);
      const { count, resetMs } = await countRequest(db, address, 60);
      if (count >= AUTH_FAILURES_PER_MINUTE) remember(address, Date.now() + resetMs);
    },
  };
}
