// The API limit per key shared by every instance on one PostgreSQL (docs/decisions.md#rate-limits): counted in
// api_rate_counters, but claimed in batches. A request takes one unit this instance has already
// claimed; without one it waits for the next claim, and requests that arrive meanwhile are
// claimed together in one upsert. A key busy on this instance also claims ahead (about 100 ms of
// its recent traffic, at most 5% of the limit), so a steady stream costs a statement every ~100 ms
// instead of one per request. Every admitted request was counted before it was admitted, so N
// instances never admit more than the limit together; the price is that units claimed ahead and
// not used before the window ends are lost (at most 5% of the limit per instance and window).
import type { Database } from "../db/connect.ts";
import { countRequest } from "../db/rate-counters-repository.ts";

export const LIMIT_WINDOW_SECONDS = 60;
/** How much of a busy key's traffic one claim covers. */
const CLAIM_AHEAD_MS = 100;
/** The most one instance claims ahead, as a share of the limit (small limits never claim ahead). */
const CLAIM_AHEAD_SHARE = 0.05;
/** Keys kept in memory before those of ended windows are dropped. */
const SWEEP_ABOVE = 10_000;

export type Admission = { admitted: true; remaining: number; resetMs: number } | { admitted: false; resetMs: number };

interface Waiter {
  resolve(admission: Admission): void;
  reject(error: unknown): void;
}

interface KeyState {
  /** performance.now() at which the window of the last claim ends. */
  windowEndsAt: number;
  /** Units claimed by this instance in that window and not used yet. */
  available: number;
  /** The window's count over every instance, as the last claim saw it. */
  counted: number;
  waiters: Waiter[];
  claiming: boolean;
  usedSinceClaim: number;
  lastClaimAt: number;
}

export class SharedApiLimit {
  readonly #keys = new Map<string, KeyState>();
  readonly #aheadCap: number;

  constructor(
    private readonly db: Database,
    private readonly perMinute: number,
  ) {
    this.#aheadCap = Math.floor(perMinute * CLAIM_AHEAD_SHARE);
  }

  /** The answer when memory has it (a unit already claimed, or a full window); undefined when a claim is needed. */
  admitNow(key: string): Admission | undefined {
    return this.#answerFromMemory(this.#stateOf(key), performance.now());
  }

  admit(key: string): Promise<Admission> {
    const state = this.#stateOf(key);
    const answer = this.#answerFromMemory(state, performance.now());
    if (answer) return Promise.resolve(answer);
    return new Promise<Admission>((resolve, reject) => {
      state.waiters.push({ resolve, reject });
      if (!state.claiming) void this.#claim(key, state);
    });
  }

  /** A unit already claimed, or a refusal when the window is known to be full; undefined when a claim is needed. */
  #answerFromMemory(state: KeyState, now: number): Admission | undefined {
    if (now >= state.windowEndsAt) {
      state.available = 0;
      state.counted = 0;
    }
    if (state.available > 0) return this.#take(state, now);
    // Over the limit in this window: every instance's count only grows until it ends.
    if (state.counted >= this.perMinute) return { admitted: false, resetMs: state.windowEndsAt - now };
    return undefined;
  }

  #take(state: KeyState, now: number): Admission {
    state.available--;
    state.usedSinceClaim++;
    const remaining = Math.max(0, this.perMinute - state.counted + state.available);
    return { admitted: true, remaining, resetMs: Math.max(0, state.windowEndsAt - now) };
  }

  async #claim(key: string, state: KeyState): Promise<void> {
    state.claiming = true;
    const now = performance.now();
    const rate = state.usedSinceClaim / Math.max(1, now - state.lastClaimAt);
    const ahead = Math.min(this.#aheadCap, Math.floor(rate * CLAIM_AHEAD_MS));
    const waiters = state.waiters.splice(0);
    const size = waiters.length + ahead;
    try {
      const { count, resetMs } = await countRequest(this.db, key, LIMIT_WINDOW_SECONDS, size);
      const answeredAt = performance.now();
      state.windowEndsAt = answeredAt + resetMs;
      state.counted = count;
      state.available = Math.max(0, Math.min(size, this.perMinute - (count - size)));
      state.usedSinceClaim = 0;
      state.lastClaimAt = answeredAt;
      for (const waiter of waiters) {
        waiter.resolve(state.available > 0 ? this.#take(state, answeredAt) : { admitted: false, resetMs });
      }
    } catch (error) {
      for (const waiter of waiters) waiter.reject(error);
    } finally {
      state.claiming = false;
    }
    // Requests that came while the claim travelled: served from what is left, or claimed together next.
    const late = state.waiters.splice(0);
    for (const waiter of late) {
      const answer = this.#answerFromMemory(state, performance.now());
      if (answer) waiter.resolve(answer);
      else state.waiters.push(waiter);
    }
    if (state.waiters.length > 0) void this.#claim(key, state);
  }

  #stateOf(key: string): KeyState {
    let state = this.#keys.get(key);
    if (!state) {
      if (this.#keys.size >= SWEEP_ABOVE) this.#sweep();
      state = { windowEndsAt: 0, available: 0, counted: 0, waiters: [], claiming: false, usedSinceClaim: 0, lastClaimAt: 0 };
      this.#keys.set(key, state);
    }
    return state;
  }

  /** Drops keys whose window ended and that nobody waits on (a flood of made-up keys must not grow memory). */
  #sweep(): void {
    const now = performance.now();
    for (const [key, state] of this.#keys) {
      if (now >= state.windowEndsAt && !state.claiming && state.waiters.length === 0) this.#keys.delete(key);
    }
  }
}
