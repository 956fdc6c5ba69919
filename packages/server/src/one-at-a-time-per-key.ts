// Kept ours: p-limit and p-queue limit tasks at once, but keep no bounded queue per key.
// One merchant's long tasks wait in a queue of their own, so that its many never stand in front of
// another merchant's one, and a place in the shared limit (p-limit) is never taken by a merchant
// twice; past a few waiting, the merchant's next task is refused.
import pLimit, { type LimitFunction } from "p-limit";

/**
 * One task at a time for each key (a merchant), at most `waitingPerKey` more of that key waiting
 * (beyond that `refuse()` is thrown and nothing runs), and each key's running task within
 * `shared`: a key's queue stays its own, and `shared` sees at most one task of each key.
 */
export function oneAtATimePerKey(shared: LimitFunction, waitingPerKey: number) {
  const queues = new Map<string, LimitFunction>();
  return async <T>(key: string, task: () => Promise<T>, refuse: () => Error): Promise<T> => {
    let own = queues.get(key);
    if (!own) {
      own = pLimit(1);
      queues.set(key, own);
    }
    if (own.activeCount + own.pendingCount > waitingPerKey) throw refuse();
    try {
      return await own(() => shared(task));
    } finally {
      if (own.activeCount + own.pendingCount === 0) queues.delete(key);
    }
  };
}
