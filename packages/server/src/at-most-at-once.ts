// Limits on how many of one kind of task run at once in this process; the others wait their turn,
// first come first served. For work that holds a scarce thing (a pooled connection) for long, so
// that it can never take all of it, and so that one merchant's many such tasks never stand in
// front of another merchant's one (D-269).

/** Runs each task it is given once fewer than its limit of them are running. */
export interface Limit {
  <T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running or waiting. */
  readonly taken: number;
}

export function atMostAtOnce(limit: number): Limit {
  let running = 0;
  const waiting: (() => void)[] = [];
  const run = async <T>(task: () => Promise<T>): Promise<T> => {
    // A finished task hands its place straight to the first waiting one, so `running` counts places.
    if (running < limit) running += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
  return Object.defineProperty(run, "taken", { get: () => running + waiting.length }) as Limit;
}

/**
 * One task at a time for each key (a merchant), at most `waitingPerKey` more of that key waiting
 * (beyond that `refuse()` is thrown and nothing runs), and each key's running task within
 * `shared`: a key's queue stays its own, and `shared` sees at most one task of each key.
 */
export function oneAtATimePerKey(shared: Limit, waitingPerKey: number) {
  const limits = new Map<string, Limit>();
  return async <T>(key: string, task: () => Promise<T>, refuse: () => Error): Promise<T> => {
    let own = limits.get(key);
    if (!own) {
      own = atMostAtOnce(1);
      limits.set(key, own);
    }
    if (own.taken > waitingPerKey) throw refuse();
    try {
      return await own(() => shared(task));
    } finally {
      if (own.taken === 0) limits.delete(key);
    }
  };
}
