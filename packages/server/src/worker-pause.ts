// The pause a polling worker (webhooks, mail) takes between rounds, cut short when another part of
// the process says work was queued. A wake-up that arrives while the worker is busy is kept until
// its next round begins (which sees that work) or its next pause (which then ends at once), so no
// queued work waits a full interval. Small and in-process: no queue library is worth it here.
export class WorkerPause {
  #pending = false;
  #waiter: (() => void) | undefined;

  /** Work is waiting: ends the pause now, or the next one at once. Usable as an event listener. */
  readonly wake = (): void => {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (waiter) waiter();
    else this.#pending = true;
  };

  /** A round begins: it will see whatever the wake-ups so far announced. */
  roundBegins(): void {
    this.#pending = false;
  }

  /** Waits `ms`, or until the next wake-up, or not at all when one is pending. */
  wait(ms: number): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiter = undefined;
        resolve();
      }, ms);
      this.#waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** How long a worker waits after `failures` failed rounds in a row: doubling from its idle interval, at most 30 s. */
export function backOffMs(idleMs: number, failures: number): number {
  return Math.min(30_000, idleMs * 2 ** Math.min(failures, 5));
}
