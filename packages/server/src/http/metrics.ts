// GET /metrics: Prometheus text (prom-client, a registry of this app's own, so several apps in one
// process never share a series). Counts requests by route and status, and their total duration.
// The webhook queue's and the refunds' gauges are read from the database at scrape time, so every
// instance reports the same truth; when the database does not answer they are left out.
import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import { Counter, Gauge, Registry } from "prom-client";
import type { Database } from "../db/connect.ts";
import { metricsAccess } from "./metrics-access.ts";

export function registerMetrics(app: FastifyInstance, db: Database, options: { token?: string | undefined } = {}) {
  const registry = new Registry();
  const labelNames = ["method", "route", "status"] as const;
  const requests = new Counter({ name: "paylink_http_requests_total", help: "HTTP requests served.", labelNames, registers: [registry] });
  const requestSeconds = new Counter({
    name: "paylink_http_request_duration_seconds_sum",
    help: "Time spent serving requests.",
    labelNames,
    registers: [registry],
  });
  const started = Date.now();
  new Gauge({
    name: "paylink_uptime_seconds",
    help: "Seconds since the process started serving.",
    registers: [registry],
    collect() {
      this.set(Math.round((Date.now() - started) / 1000));
    },
  });
  const databaseUp = new Gauge({
    name: "paylink_database_up",
    help: "Whether this instance could query its database at this scrape (1) or not (0).",
    registers: [registry],
  });
  const fromDatabase = new Registry();
  const gauges = databaseGauges(fromDatabase);

  // A callback hook: no promise per request.
  app.addHook("onResponse", (request, reply, done) => {
    const labels = { method: request.method, route: request.routeOptions.url ?? "unmatched", status: reply.statusCode };
    requests.inc(labels);
    requestSeconds.inc(labels, reply.elapsedTime / 1000);
    done();
  });

  app.get("/metrics", { schema: { hide: true }, onRequest: metricsAccess(options.token) }, async (request, reply) => {
    let read = true;
    try {
      await Promise.all([readWebhookQueue(db, gauges), readPendingRefunds(db, gauges)]);
    } catch (error) {
      // A scrape still answers when the database does not, and says so (alert on it: docs/operations.md).
      request.log.warn({ err: error }, "webhook queue metrics unavailable");
      read = false;
    }
    databaseUp.set(read ? 1 : 0);
    const text = (await registry.metrics()) + (read ? await fromDatabase.metrics() : "");
    return reply.type(Registry.PROMETHEUS_CONTENT_TYPE).send(text);
  });
}

type DatabaseGauges = ReturnType<typeof databaseGauges>;

function databaseGauges(registry: Registry) {
  const gauge = (name: string, help: string) => new Gauge({ name, help, registers: [registry] });
  return {
    pending: gauge("paylink_webhook_deliveries_pending", "Webhook deliveries waiting to be sent or retried (all instances)."),
    failed: gauge("paylink_webhook_deliveries_failed", "Webhook deliveries that used up their retries and wait for a resend."),
    oldestDue: gauge(
      "paylink_webhook_oldest_due_seconds",
      "How long the most overdue pending delivery has been due (0 when none is), leaving out those held by an open circuit breaker; growth means no worker is sending.",
    ),
    breakersOpen: gauge(
      "paylink_webhook_breakers_open",
      "Webhook endpoints whose circuit breaker is open: they stopped answering and only a probe is sent now and then.",
    ),
    held: gauge(
      "paylink_webhook_deliveries_held",
      "Pending webhook deliveries waiting for an endpoint whose circuit breaker is open (included in pending).",
    ),
    refundsPending: gauge("paylink_refunds_pending", "Refunds and reversals waiting for the processor's final answer (all instances)."),
    oldestRefund: gauge(
      "paylink_refund_oldest_pending_seconds",
      "Age of the oldest refund or reversal still waiting for the processor's final answer (0 when none is).",
    ),
  };
}

/**
 * Pending and failed deliveries, how late the most overdue pending one is (a stalled worker), and
 * the circuit breakers: endpoints held back and the deliveries waiting for them. Deliveries held by
 * an open breaker are left out of the overdue age: they wait on purpose, and counting them would
 * make "nothing is sending" fire whenever one merchant's receiver is down.
 */
async function readWebhookQueue(db: Database, gauges: DatabaseGauges): Promise<void> {
  const { rows } = await sql<{ pending: string; failed: string; overdue_seconds: number | null; breakers_open: string; held: string }>`
    SELECT
      (SELECT count(*) FROM webhook_deliveries WHERE state = 'pending') AS pending,
      (SELECT count(*) FROM webhook_deliveries WHERE state = 'failed') AS failed,
      (SELECT extract(epoch FROM now() - min(d.next_attempt_at))::float8
         FROM webhook_deliveries d LEFT JOIN webhook_endpoint_health h ON h.endpoint_id = d.endpoint_id
         WHERE d.state = 'pending' AND d.next_attempt_at <= now() AND h.open_until IS NULL) AS overdue_seconds,
      (SELECT count(*) FROM webhook_endpoint_health WHERE open_until IS NOT NULL) AS breakers_open,
      (SELECT count(*) FROM webhook_deliveries d JOIN webhook_endpoint_health h ON h.endpoint_id = d.endpoint_id
         WHERE d.state = 'pending' AND h.open_until IS NOT NULL) AS held
  `.execute(db);
  const row = rows[0]!;
  gauges.pending.set(Number(row.pending));
  gauges.failed.set(Number(row.failed));
  gauges.oldestDue.set(Math.max(0, row.overdue_seconds ?? 0));
  gauges.breakersOpen.set(Number(row.breakers_open));
  gauges.held.set(Number(row.held));
}

/**
 * Refunds and reversals still waiting for the processor's final answer. A refund normally settles
 * in its own request; one pending for long means the processor keeps not answering (the reconciler
 * asks again, at most hourly) and the merchant's money is held: an operator must look.
 */
async function readPendingRefunds(db: Database, gauges: DatabaseGauges): Promise<void> {
  const { rows } = await sql<{ pending: string; oldest_seconds: number | null }>`
    SELECT count(*) AS pending, extract(epoch FROM now() - min(created_at))::float8 AS oldest_seconds
    FROM refunds WHERE state = 'pending'`.execute(db);
  const row = rows[0]!;
  gauges.refundsPending.set(Number(row.pending));
  gauges.oldestRefund.set(Math.max(0, row.oldest_seconds ?? 0));
}
