// The webhook delivery worker (docs/webhooks.md). It runs inside `paylink serve` by default, or alone as
// `paylink worker` on PostgreSQL; any number of them share one database:
//   claim  — lease due deliveries (FOR UPDATE SKIP LOCKED + lease_until), one short statement;
//   send   — outside any transaction, at most `concurrency` at a time, 10 s each;
//   record — log the attempt and set the next state in one short transaction.
// A payment in this process wakes the loop at once (webhookSignal); otherwise it polls every
// `idleIntervalMs`, which also picks up retries that fall due and other instances' work.
import type { EventEmitter } from "node:events";
import type { Database } from "../db/connect.ts";
import type { Resolver } from "../net/outbound-guard.ts";
import type { SecretKeyring } from "../security/keyring.ts";
import { attemptDelivery } from "./attempt.ts";
import { type AttemptRecord, type ClaimedDelivery, claimDueDeliveries, recordAttempt, releaseLease } from "./delivery-queue.ts";
import { webhookSignal } from "./outbox.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./schedule.ts";
import { DEFAULT_SEND_TIMEOUT_MS } from "./send.ts";

export interface WorkerLogger {
  debug(object: object, message: string): void;
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

const silentLogger: WorkerLogger = { debug() {}, info() {}, warn() {}, error() {} };

export interface WebhookWorkerOptions {
  db: Database;
  keyring: SecretKeyring;
  /** PAYLINK_WEBHOOK_ALLOW_PRIVATE: skip the SSRF guard (development and tests). */
  allowPrivate: boolean;
  logger?: WorkerLogger;
  /** Sends in flight at most (default 16). */
  concurrency?: number;
  /** Poll interval when nothing wakes the worker (default 1 s). */
  idleIntervalMs?: number;
  /** How long a claim holds a delivery; must exceed the send timeout (default 30 s). */
  leaseMs?: number;
  /** Per-attempt timeout (default 10 s). */
  timeoutMs?: number;
  /** The retry schedule; tests shorten it. */
  retry?: Partial<RetryPolicy>;
  resolver?: Resolver;
  /** What wakes the worker (default: this process's webhookSignal). */
  signal?: EventEmitter;
  /** Unix time for webhook-timestamp (tests). */
  now?: () => number;
}

export class WebhookWorker {
  readonly #db: Database;
  readonly #keyring: SecretKeyring;
  readonly #allowPrivate: boolean;
  readonly #logger: WorkerLogger;
  readonly #concurrency: number;
  readonly #idleIntervalMs: number;
  readonly #leaseMs: number;
  readonly #timeoutMs: number;
  readonly #retry: RetryPolicy;
  readonly #resolver: Resolver | undefined;
  readonly #signal: EventEmitter;
  readonly #now: () => number;

  readonly #inFlight = new Set<Promise<void>>();
  readonly #shutdown = new AbortController();
  #stopping = false;
  #loop: Promise<void> | undefined;
  #wakePending = false;
  #wakeWaiter: (() => void) | undefined;
  /** The last claim filled every free slot: more may be due as soon as a slot frees up. */
  #backlog = false;
  #claimFailures = 0;

  constructor(options: WebhookWorkerOptions) {
    this.#db = options.db;
    this.#keyring = options.keyring;
    this.#allowPrivate = options.allowPrivate;
    this.#logger = options.logger ?? silentLogger;
    this.#concurrency = options.concurrency ?? 16;
    this.#idleIntervalMs = options.idleIntervalMs ?? 1000;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
    this.#leaseMs = options.leaseMs ?? 30_000;
    if (this.#leaseMs <= this.#timeoutMs) throw new RangeError("leaseMs must be longer than timeoutMs");
    this.#retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#resolver = options.resolver;
    this.#signal = options.signal ?? webhookSignal;
    this.#now = options.now ?? (() => Date.now());
  }

  start(): this {
    if (this.#loop) return this;
    this.#signal.on("wake", this.#wake);
    this.#loop = this.#run();
    return this;
  }

  /**
   * Stops claiming, lets sends in flight finish for up to `graceMs`, then aborts the rest and
   * hands their deliveries back. Call before closing the database.
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.#stopping) return this.#loop ?? Promise.resolve();
    this.#stopping = true;
    this.#signal.off("wake", this.#wake);
    this.#wake();
    await this.#loop;
    if (this.#inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<"grace over">((resolve) => (timer = setTimeout(() => resolve("grace over"), graceMs)));
      const outcome = await Promise.race([Promise.allSettled([...this.#inFlight]).then(() => "done" as const), graceOver]);
      clearTimeout(timer);
      if (outcome === "grace over") {
        this.#logger.warn(
          { inFlight: this.#inFlight.size },
          "webhook sends still running at shutdown: aborting them; they will be sent again",
        );
        this.#shutdown.abort();
        await Promise.allSettled([...this.#inFlight]);
      }
    }
  }

  /** Sends in flight now (for tests and metrics). */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  readonly #wake = () => {
    const waiter = this.#wakeWaiter;
    if (waiter) {
      this.#wakeWaiter = undefined;
      waiter();
    } else {
      this.#wakePending = true;
    }
  };

  #sleep(ms: number): Promise<void> {
    if (this.#wakePending || this.#stopping) {
      this.#wakePending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wakeWaiter = undefined;
        resolve();
      }, ms);
      this.#wakeWaiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      const free = this.#concurrency - this.#inFlight.size;
      if (free > 0) {
        this.#wakePending = false;
        let claimed: ClaimedDelivery[] = [];
        try {
          claimed = await claimDueDeliveries(this.#db, free, this.#leaseMs);
          this.#claimFailures = 0;
        } catch (error) {
          // The database may be restarting: back off (up to 30 s) and keep going.
          this.#claimFailures += 1;
          this.#logger.error({ err: error }, "claiming webhook deliveries failed");
          await this.#sleep(Math.min(30_000, this.#idleIntervalMs * 2 ** Math.min(this.#claimFailures, 5)));
          continue;
        }
        this.#backlog = claimed.length === free;
        for (const delivery of claimed) this.#dispatch(delivery);
        if (this.#backlog) continue;
      }
      await this.#sleep(this.#idleIntervalMs);
    }
  }

  #dispatch(delivery: ClaimedDelivery): void {
    const task: Promise<void> = this.#deliver(delivery)
      .catch((error) =>
        this.#logger.error(
          { err: error, deliveryId: delivery.id },
          "webhook delivery crashed; its lease will expire and it will be retried",
        ),
      )
      .finally(() => {
        this.#inFlight.delete(task);
        if (this.#backlog) this.#wake();
      });
    this.#inFlight.add(task);
  }

  async #deliver(delivery: ClaimedDelivery): Promise<void> {
    const outcome = await attemptDelivery(delivery, {
      keyring: this.#keyring,
      allowPrivate: this.#allowPrivate,
      timeoutMs: this.#timeoutMs,
      retry: this.#retry,
      resolver: this.#resolver,
      shutdown: this.#shutdown.signal,
      now: this.#now,
      onPrepareFailed: (error) => this.#logger.error({ err: error, deliveryId: delivery.id }, "preparing a webhook failed"),
    });
    if (!outcome) {
      await releaseLease(this.#db, delivery).catch(() => {});
      return;
    }
    const { record, attemptNumber } = outcome;
    await this.#record(delivery, record);

    const fields = {
      deliveryId: delivery.id,
      webhookId: delivery.endpointId,
      attempt: attemptNumber,
      statusCode: record.statusCode,
      latencyMs: record.latencyMs,
    };
    const next = record.next;
    if (next.state === "delivered") this.#logger.debug(fields, "webhook delivered");
    else if (next.state === "retry")
      this.#logger.info({ ...fields, error: record.error, retryInMs: next.retryDelayMs }, "webhook attempt failed; will retry");
    else this.#logger.warn({ ...fields, error: record.error }, "webhook failed: every retry was used");
  }

  /** A few tries: losing the record would mean sending the message once more after the lease. */
  async #record(delivery: ClaimedDelivery, record: AttemptRecord): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const owned = await recordAttempt(this.#db, delivery, record);
        if (!owned)
          this.#logger.warn(
            { deliveryId: delivery.id },
            "webhook lease had expired before the outcome was recorded; another worker owns it now",
          );
        return;
      } catch (error) {
        if (attempt >= 3) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }
}

export function startWebhookWorker(options: WebhookWorkerOptions): WebhookWorker {
  return new WebhookWorker(options).start();
}
