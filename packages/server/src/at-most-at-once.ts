// A limit on how many of one kind of task run at once in this process; the others wait their
// turn, first come first served. For work that holds a scarce thing (a pooled connection) for
// long, so that it can never take all of it (D-269).

/** Runs each task it is given once fewer than `limit` of its tasks are running. */
export function atMostAtOnce(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
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
}
