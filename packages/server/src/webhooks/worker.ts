// The webhook delivery worker (docs/webhooks.md). It runs inside `paylink serve` by default, or alone as
// `paylink worker` on PostgreSQL; any number of them share one database:
//   claim  — lease due deliveries (FOR UPDATE SKIP LOCKED + lease_until), fairly between endpoints,
//            at most `perEndpointConcurrency` in flight per endpoint over all workers (or every slot
//            but that many while the endpoint is the only one with due work, docs/decisions.md#leases-and-fair-shares), none for an
//            endpoint whose circuit breaker is open (claim.ts, breaker.ts);
//   send   — outside any transaction, at most `concurrency` at a time, 3 s to connect, 10 s in all;
//   record — update the breaker, then log the attempt and set the next state in one statement,
//            which for a delivered attempt also hands its slot to the endpoint's next due delivery
//            under the same caps, batched with the sends that finished meanwhile (hand-over.ts).
// A payment in this process wakes the loop at once (webhookSignal); otherwise it polls every
// `idleIntervalMs`, which also picks up retries that fall due and other instances' work.
import { type EventEmitter, setMaxListeners } from "node:events";
import type { Database } from "../db/connect.ts";
import type { Resolver } from "../net/outbound-guard.ts";
import type { SecretKeyring } from "../security/keyring.ts";
import { backOffMs, WorkerPause } from "../worker-pause.ts";
import { type AttemptContext, attemptDelivery } from "./attempt.ts";
import { type BreakerPolicy, DEFAULT_BREAKER_POLICY } from "./breaker.ts";
import { claimDueDeliveries, DEFAULT_PER_ENDPOINT_CONCURRENCY } from "./claim.ts";
import { type ClaimedDelivery, releaseLease } from "./delivery-queue.ts";
import { HandOverRecorder } from "./hand-over.ts";
import { webhookSignal } from "./outbox.ts";
import { recordOutcome, silentLogger, type WorkerLogger } from "./outcome.ts";
import { QueueStatistics } from "./queue-statistics.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./schedule.ts";
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_SEND_TIMEOUT_MS } from "./send.ts";

export type { WorkerLogger } from "./outcome.ts";

export interface WebhookWorkerOptions {
  db: Database;
  keyring: SecretKeyring;
  /** PAYLINK_WEBHOOK_ALLOW_PRIVATE: skip the SSRF guard (development and tests). */
  allowPrivate: boolean;
  logger?: WorkerLogger;
  /** Sends in flight at most (default 16). */
  concurrency?: number;
  /**
   * Sends in flight per endpoint, counted over every worker on the database (default 4), while
   * another endpoint has due work; an endpoint alone may have `concurrency` minus this many.
   */
  perEndpointConcurrency?: number;
  /** Poll interval when nothing wakes the worker (default 1 s). */
  idleIntervalMs?: number;
  /** How long a claim holds a delivery; must exceed the send timeout (default 30 s). */
  leaseMs?: number;
  /** Per-attempt timeout (default 10 s). */
  timeoutMs?: number;
  /** Time to connect, within `timeoutMs` (default 3 s). */
  connectTimeoutMs?: number;
  /** When an endpoint's circuit breaker opens and probes (tests shorten it). */
  breaker?: Partial<BreakerPolicy>;
  /** The retry schedule; tests shorten it. */
  retry?: Partial<RetryPolicy>;
  resolver?: Resolver;
  /** Refresh the queue's statistics when it outgrows them (docs/decisions.md#queue-statements); PostgreSQL only, where ANALYZE stalls nothing else. */
  refreshStatistics?: boolean;
  /** What wakes the worker (default: this process's webhookSignal). */
  signal?: EventEmitter;
  /** Unix time for webhook-timestamp (tests). */
  now?: () => number;
}

export class WebhookWorker {
  readonly #db: Database;
  readonly #logger: WorkerLogger;
  readonly #concurrency: number;
  readonly #perEndpoint: number;
  readonly #alonePerEndpoint: number;
  readonly #handOver: HandOverRecorder;
  readonly #statistics: QueueStatistics | undefined;
  /** What every attempt is sent with (attempt.ts). */
  readonly #attemptContext: Omit<AttemptContext, "onPrepareFailed">;
  readonly #idleIntervalMs: number;
  readonly #leaseMs: number;
  readonly #breaker: BreakerPolicy;
  readonly #signal: EventEmitter;

  readonly #inFlight = new Set<Promise<void>>();
  readonly #shutdown = new AbortController();
  #stopping = false;
  #loop: Promise<void> | undefined;
  readonly #pause = new WorkerPause();
  #claimFailures = 0;

  constructor(options: WebhookWorkerOptions) {
    this.#db = options.db;
    this.#logger = options.logger ?? silentLogger;
    this.#concurrency = options.concurrency ?? 16;
    this.#perEndpoint = options.perEndpointConcurrency ?? DEFAULT_PER_ENDPOINT_CONCURRENCY;
    if (!(this.#perEndpoint >= 1)) throw new RangeError("perEndpointConcurrency must be at least 1");
    // An endpoint alone with due work may use every slot but one fair share, which stays free for
    // a newcomer even when the lone endpoint's sends hang (docs/decisions.md#leases-and-fair-shares).
    this.#alonePerEndpoint = Math.max(this.#perEndpoint, this.#concurrency - this.#perEndpoint);
    this.#idleIntervalMs = options.idleIntervalMs ?? 1000;
    this.#breaker = { ...DEFAULT_BREAKER_POLICY, ...options.breaker };
    this.#leaseMs = options.leaseMs ?? 30_000;
    const timeoutMs = options.timeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
    if (this.#leaseMs <= timeoutMs) throw new RangeError("leaseMs must be longer than timeoutMs");
    this.#attemptContext = {
      keyring: options.keyring,
      allowPrivate: options.allowPrivate,
      timeoutMs,
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
      resolver: options.resolver,
      shutdown: this.#shutdown.signal,
      now: options.now ?? (() => Date.now()),
    };
    this.#signal = options.signal ?? webhookSignal;
    const handOverPolicy = { leaseMs: this.#leaseMs, perEndpoint: this.#perEndpoint, alonePerEndpoint: this.#alonePerEndpoint };
    this.#handOver = new HandOverRecorder(this.#db, handOverPolicy, this.#concurrency);
    this.#statistics = options.refreshStatistics ? new QueueStatistics(this.#db, this.#logger) : undefined;
    // Every send in flight listens for the shutdown: more than Node's default of 10 is expected.
    setMaxListeners(this.#concurrency + 1, this.#shutdown.signal);
  }

  start(): this {
    if (this.#loop) return this;
    this.#signal.on("wake", this.#pause.wake);
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
    this.#signal.off("wake", this.#pause.wake);
    this.#pause.wake();
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

  async #run(): Promise<void> {
    while (!this.#stopping) {
      this.#statistics?.whileSending(this.#inFlight.size);
      const free = this.#concurrency - this.#inFlight.size;
      if (free > 0) {
        this.#pause.roundBegins();
        let claimed: ClaimedDelivery[] = [];
        try {
          claimed = await claimDueDeliveries(this.#db, free, this.#leaseMs, this.#perEndpoint, this.#alonePerEndpoint);
          this.#claimFailures = 0;
        } catch (error) {
          // The database may be restarting: back off (up to 30 s) and keep going.
          this.#claimFailures += 1;
          this.#logger.error({ err: error }, "claiming webhook deliveries failed");
          await this.#pause.wait(backOffMs(this.#idleIntervalMs, this.#claimFailures));
          continue;
        }
        for (const delivery of claimed) this.#dispatch(delivery);
        if (claimed.length === free) continue; // every slot filled: more may be due when one frees up
      }
      await this.#pause.wait(this.#idleIntervalMs);
    }
  }

  #dispatch(claimed: ClaimedDelivery): void {
    const task: Promise<void> = this.#deliverAll(claimed).finally(() => {
      this.#inFlight.delete(task);
      // The slot is free (nothing more was handed over to it): claim again at once, as more work
      // may take it, and an endpoint at its cap (which the claim left waiting) has one send fewer in
      // flight now. Wakes coalesce.
      this.#pause.wake();
    });
    this.#inFlight.add(task);
  }

  /** Sends the delivery, then each one its slot is handed over to (docs/decisions.md#leases-and-fair-shares), until none is. */
  async #deliverAll(claimed: ClaimedDelivery): Promise<void> {
    for (let delivery: ClaimedDelivery | undefined = claimed; delivery; ) {
      const current: ClaimedDelivery = delivery;
      // Handed over while the worker began to stop: given back unsent, for another worker now.
      if (this.#stopping && current !== claimed) return releaseLease(this.#db, current).catch(() => {});
      delivery = await this.#deliver(current).catch((error) => {
        this.#logger.error(
          { err: error, deliveryId: current.id },
          "webhook delivery crashed; its lease will expire and it will be retried",
        );
        return undefined;
      });
    }
  }

  async #deliver(delivery: ClaimedDelivery): Promise<ClaimedDelivery | undefined> {
    const outcome = await attemptDelivery(delivery, {
      ...this.#attemptContext,
      onPrepareFailed: (error) => this.#logger.error({ err: error, deliveryId: delivery.id }, "preparing a webhook failed"),
    });
    if (!outcome) {
      await releaseLease(this.#db, delivery).catch(() => {});
      return undefined;
    }
    // A stopping worker takes no new work, handed over or claimed.
    const handOver = this.#stopping ? undefined : this.#handOver;
    return recordOutcome(this.#db, delivery, outcome, this.#breaker, this.#logger, handOver);
  }
}
