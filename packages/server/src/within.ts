// Waiting for something at shutdown without letting it hold the process: `paylink serve` and
// `paylink worker` both bound each step of their stop by time (D-131, D-213).

/** Whether `promise` settled within `ms`. */
export async function withinMs(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = await Promise.race([promise.then(() => true as const), timeout]);
  clearTimeout(timer);
  return settled;
}
