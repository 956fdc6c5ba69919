// GET /metrics: Prometheus text format. Counts requests by route and status, and their total
// duration, without a client library: the format is a few lines of text. The webhook queue's and
// the refunds' gauges come from the database at scrape time, so every instance reports the same truth.
import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import type { Database } from "../db/connect.ts";
import { metricsAccess } from "./metrics-access.ts";

export function registerMetrics(app: FastifyInstance, db: Database, options: { token?: string | undefined } = {}) {
  const requests = new Map<string, { labels: string; count: number; seconds: number }>();
  const started = Date.now();

  // A callback hook (no promise per request); the label text is built once per series, found again
  // through a key of the three values.
  app.addHook("onResponse", (request, reply, done) => {
    const route = request.routeOptions.url ?? "unmatched";
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let entry = requests.get(key);
    if (entry === undefined) {
      const labels = `method="${request.method}",route="${route.replace(/"/g, "")}",status="${reply.statusCode}"`;
      entry = { labels, count: 0, seconds: 0 };
      requests.set(key, entry);
    }
    entry.count += 1;
    entry.seconds += reply.elapsedTime / 1000;
    done();
  });

  app.get("/metrics", { schema: { hide: true }, onRequest: metricsAccess(options.token) }, async (request, reply) => {
    const lines = [
      "# HELP paylink_http_requests_total HTTP requests served.",
      "# TYPE paylink_http_requests_total counter",
      ...[...requests.values()].map((e) => `paylink_http_requests_total{${e.labels}} ${e.count}`),
      "# HELP paylink_http_request_duration_seconds_sum Time spent serving requests.",
      "# TYPE paylink_http_request_duration_seconds_sum counter",
      ...[...requests.values()].map((e) => `paylink_http_request_duration_seconds_sum{${e.labels}} ${e.seconds.toFixed(6)}`),
      "# HELP paylink_uptime_seconds Seconds since the process started serving.",
      "# TYPE paylink_uptime_seconds gauge",
      `paylink_uptime_seconds ${((Date.now() - started) / 1000).toFixed(0)}`,
      ...(await Promise.all([webhookQueueLines(db), pendingRefundLines(db)]).then(
        ([queue, refunds]) => [...databaseUpLines(1), ...queue, ...refunds],
        (error) => {
          // A scrape still answers when the database does not, and says so.
          request.log.warn({ err: error }, "webhook queue metrics unavailable");
          return databaseUpLines(0);
        },
      )),
    ];
    return reply.type("text/plain; version=0.0.4").send(`${lines.join("\n")}\n`);
  });
}

/** Whether this instance reached its database at this scrape (alert on 0: docs/operations.md). */
function databaseUpLines(up: 0 | 1): string[] {
  return [
    "# HELP paylink_database_up Whether this instance could query its database at this scrape (1) or not (0).",
    "# TYPE paylink_database_up gauge",
    `paylink_database_up ${up}`,
  ];
}

/**
 * Pending and failed deliveries, how late the most overdue pending one is (a stalled worker), and
 * the circuit breakers: endpoints held back and the deliveries waiting for them. Deliveries held by
 * an open breaker are left out of the overdue age: they wait on purpose, and counting them would
 * make "nothing is sending" fire whenever one merchant's receiver is down.
 */
async function webhookQueueLines(db: Database): Promise<string[]> {
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
  return [
    "# HELP paylink_webhook_deliveries_pending Webhook deliveries waiting to be sent or retried (all instances).",
    "# TYPE paylink_webhook_deliveries_pending gauge",
    `paylink_webhook_deliveries_pending ${Number(row.pending)}`,
    "# HELP paylink_webhook_deliveries_failed Webhook deliveries that used up their retries and wait for a resend.",
    "# TYPE paylink_webhook_deliveries_failed gauge",
    `paylink_webhook_deliveries_failed ${Number(row.failed)}`,
    "# HELP paylink_webhook_oldest_due_seconds How long the most overdue pending delivery has been due (0 when none is), leaving out those held by an open circuit breaker; growth means no worker is sending.",
    "# TYPE paylink_webhook_oldest_due_seconds gauge",
    `paylink_webhook_oldest_due_seconds ${Math.max(0, row.overdue_seconds ?? 0).toFixed(1)}`,
    "# HELP paylink_webhook_breakers_open Webhook endpoints whose circuit breaker is open: they stopped answering and only a probe is sent now and then.",
    "# TYPE paylink_webhook_breakers_open gauge",
    `paylink_webhook_breakers_open ${Number(row.breakers_open)}`,
    "# HELP paylink_webhook_deliveries_held Pending webhook deliveries waiting for an endpoint whose circuit breaker is open (included in pending).",
    "# TYPE paylink_webhook_deliveries_held gauge",
    `paylink_webhook_deliveries_held ${Number(row.held)}`,
  ];
}

/**
 * Refunds and reversals still waiting for the processor's final answer (D-212). A refund normally
 * settles in its own request; one pending for long means the processor keeps not answering (the
 * reconciler asks again, at most hourly) and the merchant's money is held: an operator must look.
 */
async function pendingRefundLines(db: Database): Promise<string[]> {
  const { rows } = await sql<{ pending: string; oldest_seconds: number | null }>`
    SELECT count(*) AS pending, extract(epoch FROM now() - min(created_at))::float8 AS oldest_seconds
    FROM refunds WHERE state = 'pending'`.execute(db);
  const row = rows[0]!;
  return [
    "# HELP paylink_refunds_pending Refunds and reversals waiting for the processor's final answer (all instances).",
    "# TYPE paylink_refunds_pending gauge",
    `paylink_refunds_pending ${Number(row.pending)}`,
    "# HELP paylink_refund_oldest_pending_seconds Age of the oldest refund or reversal still waiting for the processor's final answer (0 when none is).",
    "# TYPE paylink_refund_oldest_pending_seconds gauge",
    `paylink_refund_oldest_pending_seconds ${Math.max(0, row.oldest_seconds ?? 0).toFixed(1)}`,
  ];
}
