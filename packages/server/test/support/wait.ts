// Waiting for something a test can observe (a row reaching a state, a lock being waited on, a
// worker going idle) instead of sleeping for a while and hoping it has happened: faster when it
// happens at once, and a failure that names what never happened when it does not.

/** Polls `probe` until it returns a truthy value, which is returned; throws after `timeoutMs`. */
export async function waitUntil<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 10_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
