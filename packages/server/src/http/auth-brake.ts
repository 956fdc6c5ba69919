// The wrong-API-key brake per client address (docs/decisions.md#rate-limits, docs/api.md#rate-limits).
// Hand-written: the rate-limit library counts a request after the fact and cannot give a count
// back, and a brake that checks, does the work, then records lets every attempt that arrives
// together pass the check. Here an attempt takes its place in the address's window before its key
// is looked up; a key that turns out good gives it back, a wrong one keeps it. So of N attempts at
// once at most the limit are looked up, on one instance or many. The count is shared through the
// database's counter table on PostgreSQL and kept in memory on the embedded database.
import type { FastifyRequest } from "fastify";
import type { Database } from "../db/connect.ts";
import { type CountedSlot, giveBackCountedSlot, takeCountedSlot } from "../db/rate-counters-repository.ts";
import { clientKey } from "./rate-limit.ts";

/** Missing or wrong API keys per client address per minute before 429 (a key-guessing flood). */
export const AUTH_FAILURES_PER_MINUTE = 30;
const WINDOW_SECONDS = 60;
/** Addresses remembered at most (blocks here, windows in the memory counter); past it, ended ones go, then the oldest. */
const MAX_REMEMBERED = 20_000;

export type AuthSlot =
  | { blocked: true; retryAfterSeconds: number }
  | {
      blocked: false;
      /** Kept as a failure, or given back; the first call decides, later calls do nothing. Never throws. */
      finish(failed: boolean): Promise<void>;
    };

export interface AuthBrake {
  /** Seconds this address is known to be held back, without waiting; 0 when it is not. */
  blockedForNow(request: FastifyRequest): number;
  /** Takes this attempt's place before its key is checked, or says how long to wait. */
  take(request: FastifyRequest): Promise<AuthSlot>;
}

/** Where the places are counted: one window per address, the same clock-minute windows in both. */
interface SlotCounter {
  take(key: string): Promise<{ slot: CountedSlot | undefined; resetMs: number }>;
  giveBack(slot: CountedSlot): Promise<void>;
}

/** A brake that never holds anyone back (the limit is turned off). */
export const NO_AUTH_BRAKE: AuthBrake = {
  blockedForNow: () => 0,
  take: async () => ({ blocked: false, finish: async () => {} }),
};

/** Shared by every instance on the database (PostgreSQL): api_rate_counters. */
export function sharedAuthBrake(db: Database): AuthBrake {
  return brakeOver({
    take: (key) => takeCountedSlot(db, key, WINDOW_SECONDS, AUTH_FAILURES_PER_MINUTE),
    giveBack: (slot) => giveBackCountedSlot(db, slot),
  });
}

/** In this process's memory (the embedded database: one process). */
export function inMemoryAuthBrake(): AuthBrake {
  const windows = new Map<string, { start: number; count: number }>();
  return brakeOver({
    async take(key) {
      const now = Date.now();
      const start = Math.floor(now / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS * 1000;
      const resetMs = start + WINDOW_SECONDS * 1000 - now;
      let window = windows.get(key);
      if (window === undefined || window.start !== start) {
        if (window === undefined && windows.size >= MAX_REMEMBERED) dropOldest(windows, (w) => w.start < start);
        window = { start, count: 0 };
        windows.set(key, window);
      }
      if (window.count >= AUTH_FAILURES_PER_MINUTE) return { slot: undefined, resetMs };
      window.count++;
      return { slot: { key, windowStart: new Date(start), count: window.count }, resetMs };
    },
    async giveBack(slot) {
      const window = windows.get(slot.key);
      if (window !== undefined && window.start === slot.windowStart.getTime()) window.count = Math.max(0, window.count - 1);
    },
  });
}

function brakeOver(counter: SlotCounter): AuthBrake {
  // Address → when its block ends (ms since the epoch). A blocked address is refused without a
  // statement: a flood of made-up keys stops costing anything once it is braked.
  const blockedUntil = new Map<string, number>();
  const addressOf = (request: FastifyRequest) => `auth:${clientKey(request)}`;

  function remember(address: string, until: number) {
    if (!blockedUntil.has(address) && blockedUntil.size >= MAX_REMEMBERED) dropOldest(blockedUntil, (end) => end <= Date.now());
    blockedUntil.set(address, until);
  }

  return {
    blockedForNow(request) {
      const address = addressOf(request);
      const until = blockedUntil.get(address);
      if (until === undefined) return 0;
      const left = until - Date.now();
      if (left > 0) return Math.max(1, Math.ceil(left / 1000));
      blockedUntil.delete(address);
      return 0;
    },
    async take(request) {
      const address = addressOf(request);
      // A database that is away fails this like any query: 503 5003 instead of the 401.
      const { slot, resetMs } = await counter.take(address);
      const windowEndsAt = Date.now() + resetMs;
      if (slot === undefined) {
        remember(address, windowEndsAt);
        return { blocked: true, retryAfterSeconds: Math.max(1, Math.ceil(resetMs / 1000)) };
      }
      let finished = false;
      return {
        blocked: false,
        async finish(failed) {
          if (finished) return;
          finished = true;
          // The last place of the window kept as a failure: this instance refuses the address from now on.
          if (failed) {
            if (slot.count >= AUTH_FAILURES_PER_MINUTE) remember(address, windowEndsAt);
            return;
          }
          try {
            await counter.giveBack(slot);
          } catch {
            // Not in the way of the answer: the place stays taken until the window ends (the brake
            // errs on the side of braking).
          }
        },
      };
    },
  };
}

/** Makes room in a bounded map: entries that `ended` first, else the oldest. */
function dropOldest<V>(map: Map<string, V>, ended: (value: V) => boolean) {
  for (const [key, value] of map) if (ended(value)) map.delete(key);
  if (map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value!);
}
