// The API keys this process has seen, by hash, so an API request does not look its key up in the
// database each time (docs/decisions.md#keys-passwords-sessions). Trust in the cache lasts one second: a request that finds it older
// first reads the one-row api_key_generation (bumped by a trigger on any revoke, delete or change
// of a key, migration 0018) and empties the cache if it moved. A revoke made through this process
// empties it at once. So a revoked key is refused at once by the instance that revoked it, and by
// every other instance (or after a revoke by hand in SQL) within about a second.
import { sql } from "kysely";
import type { Database } from "./connect.ts";

export interface CachedApiKey {
  keyId: string;
  /** The key's first characters, as the portal lists it: who made a change, in the audit log. */
  keyPrefix: string;
  merchantId: string;
  /** When "last used" was last written or read (ms since the epoch), null when never. */
  lastUsedAt: number | null;
}

/** How long the cache is trusted before the generation is read again. */
export const API_KEY_CACHE_TRUST_MS = 1_000;
/** "Last used" (the portal's key list) is written at most this often per key and process. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;
/** Keys kept at most; the longest-held goes first (a real deployment has far fewer active keys). */
const MAX_KEYS = 10_000;

export class ApiKeyCache {
  readonly #keys = new Map<string, CachedApiKey>();
  /** Bumped whenever the cache is emptied: a lookup begun before cannot refill it with what it read. */
  #epoch = 0;
  #generation: number | undefined;
  #confirmedAt = Number.NEGATIVE_INFINITY;
  #confirming: Promise<void> | undefined;

  constructor(private readonly db: Database) {}

  /** Makes sure the cache reflects every key change committed up to about a second ago. */
  async confirm(): Promise<void> {
    if (performance.now() - this.#confirmedAt < API_KEY_CACHE_TRUST_MS) return;
    this.#confirming ??= this.#readGeneration().finally(() => {
      this.#confirming = undefined;
    });
    await this.#confirming;
  }

  async #readGeneration(): Promise<void> {
    const startedAt = performance.now();
    const { rows } = await sql<{ generation: number }>`SELECT generation FROM api_key_generation`.execute(this.db);
    const generation = Number(rows[0]?.generation ?? 0);
    if (generation !== this.#generation) {
      this.forgetAll();
      this.#generation = generation;
    }
    // Trust runs from when the read was sent: a change committed while it travelled is caught next time.
    this.#confirmedAt = startedAt;
  }

  /**
   * A key (its merchant and id) when this needs no statement at all: the cache is within its second
   * of trust, holds the key, and the key's "last used" is not due to be written. Otherwise
   * undefined, and the caller takes the asynchronous way (findApiKeyByHash), which may still succeed.
   */
  keyWithoutStatement(keyHash: string): CachedApiKey | undefined {
    if (performance.now() - this.#confirmedAt >= API_KEY_CACHE_TRUST_MS) return undefined;
    const key = this.#keys.get(keyHash);
    if (key === undefined || key.lastUsedAt === null || Date.now() - key.lastUsedAt > LAST_USED_WRITE_INTERVAL_MS) return undefined;
    return key;
  }

  get(keyHash: string): CachedApiKey | undefined {
    return this.#keys.get(keyHash);
  }

  /** The epoch to hand back to `remember`: what a lookup reads after a revoke is never cached with stale contents. */
  get epoch(): number {
    return this.#epoch;
  }

  remember(keyHash: string, key: CachedApiKey, epochAtRead: number): void {
    if (epochAtRead !== this.#epoch) return;
    if (this.#keys.size >= MAX_KEYS) this.#keys.delete(this.#keys.keys().next().value!);
    this.#keys.set(keyHash, key);
  }

  forgetAll(): void {
    this.#keys.clear();
    this.#epoch++;
  }
}

// One cache per database handle, which is one per process in production (a second handle, as a
// second instance in tests, has its own). Keyed by the handle so every caller of the repository,
// route or test, shares the cache and its revocations.
const caches = new WeakMap<Database, ApiKeyCache>();

export function apiKeyCacheOf(db: Database): ApiKeyCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = new ApiKeyCache(db);
    caches.set(db, cache);
  }
  return cache;
}
