// The limits on tasks at once: p-limit as src/one-at-a-time-per-key.ts and its callers rely on it (never
// more than the limit running, the waiting ones started in the order they came, a task that fails
// still gives its place up), and the queue per key built on it.
import assert from "node:assert/strict";
import { test } from "node:test";
import pLimit from "p-limit";
import { oneAtATimePerKey } from "../src/one-at-a-time-per-key.ts";

test("never more than the limit at once; the waiting start first come, first served; a failure frees its place", async () => {
  const limited = pLimit(2);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const releases = new Map<number, (fail: boolean) => void>();
  const task = (n: number) =>
    limited(async () => {
      started.push(n);
      running += 1;
      most = Math.max(most, running);
      const fail = await new Promise<boolean>((resolve) => releases.set(n, resolve));
      running -= 1;
      if (fail) throw new Error(`task ${n} failed`);
      return n;
    });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const results = [1, 2, 3, 4, 5].map((n) => task(n).catch((error: Error) => error.message));
  await settle();
  assert.deepEqual(started, [1, 2], "two start, three wait");
  releases.get(2)!(true);
  await settle();
  assert.deepEqual(started, [1, 2, 3], "the failed task's place goes to the first waiting");
  // Handed over, the place is still taken: a task that comes now waits behind 4 and 5.
  const late = task(8);
  await settle();
  assert.deepEqual(started, [1, 2, 3], "two run (1 and 3); the newcomer waits");
  releases.get(1)!(false);
  await settle();
  assert.deepEqual(started, [1, 2, 3, 4]);
  for (const n of [3, 4]) releases.get(n)!(false);
  await settle();
  assert.deepEqual(started, [1, 2, 3, 4, 5, 8]);
  for (const n of [5, 8]) releases.get(n)!(false);
  assert.deepEqual(await Promise.all(results), [1, "task 2 failed", 3, 4, 5]);
  assert.equal(await late, 8);
  assert.equal(most, 2);
  // Its places are all free again: two start at once.
  const again = [6, 7].map((n) => task(n));
  await settle();
  assert.deepEqual(started.slice(-2), [6, 7]);
  for (const n of [6, 7]) releases.get(n)!(false);
  assert.deepEqual(await Promise.all(again), [6, 7]);
});

test("one at a time per key, a few waiting per key and the rest refused; a key's queue never stands in front of another key", async () => {
  const turn = oneAtATimePerKey(pLimit(2), 2);
  const started: string[] = [];
  const releases = new Map<string, () => void>();
  const task = (key: string, name: string) =>
    turn(
      key,
      async () => {
        started.push(name);
        await new Promise<void>((resolve) => releases.set(name, resolve));
        return name;
      },
      () => new Error(`${name} refused`),
    );
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const done = [task("A", "a1"), task("A", "a2"), task("A", "a3"), task("B", "b1"), task("C", "c1")];
  await settle();
  assert.deepEqual(started, ["a1", "b1"], "one of A's, then B's; C waits for a shared place, A's others in A's own queue");
  await assert.rejects(task("A", "a4"), /a4 refused/, "A has one running and two waiting");
  releases.get("b1")!();
  await settle();
  assert.deepEqual(started, ["a1", "b1", "c1"], "the freed place goes to C, not to A's second");
  releases.get("a1")!();
  await settle();
  assert.deepEqual(started, ["a1", "b1", "c1", "a2"]);
  releases.get("c1")!();
  releases.get("a2")!();
  await settle();
  await settle();
  assert.deepEqual(started, ["a1", "b1", "c1", "a2", "a3"]);
  releases.get("a3")!();
  assert.deepEqual(await Promise.all(done), ["a1", "a2", "a3", "b1", "c1"]);
  // A's queue is empty again: a new task of A starts at once.
  const again = task("A", "a5");
  await settle();
  assert.equal(started.at(-1), "a5");
  releases.get("a5")!();
  assert.equal(await again, "a5");
});
