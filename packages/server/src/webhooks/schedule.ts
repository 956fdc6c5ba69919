// The retry schedule of docs/webhooks.md#delivery-and-retries: the first attempt at once, then retries after 5 s, 1 min,
// 5 min, 30 min, 2 h, 5 h, 10 h, 24 h and 24 h (ten attempts in all, about 3 days), each delay
// with ±10 % jitter so that a receiver coming back is not hit by every backlog at one instant.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delay before retry n+1 after attempt n (index n-1). */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  1 * MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  24 * HOUR,
  24 * HOUR,
];

/** Retry-After is honoured up to this; a receiver cannot park a message for longer. */
export const MAX_RETRY_AFTER_MS = 24 * HOUR;

export interface RetryPolicy {
  delaysMs: readonly number[];
  /** Fraction of each delay added or removed at random (0.1 = ±10 %). */
  jitter: number;
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { delaysMs: DEFAULT_RETRY_DELAYS_MS, jitter: 0.1, random: Math.random };

/**
 * When to try again after failed attempt number `attemptCount` (1-based), or undefined when the
 * schedule is exhausted and the delivery has failed. A Retry-After of a 429/503 answer is a
 * floor: the message never goes back sooner than the receiver asked, nor sooner than the schedule.
 */
export function nextRetryDelayMs(attemptCount: number, policy: RetryPolicy, retryAfterMs?: number): number | undefined {
  const base = policy.delaysMs[attemptCount - 1];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (1 + (policy.random() * 2 - 1) * policy.jitter));
  if (retryAfterMs === undefined) return jittered;
  return Math.max(jittered, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP date. Undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * SECOND;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
