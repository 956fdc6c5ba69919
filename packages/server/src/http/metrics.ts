// GET /metrics: Prometheus text format. Counts requests by route and status, and their total
// duration, without a client library: the format is a few lines of text. The webhook queue's
// gauges come from the database at scrape time, so every instance reports the same truth.
import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import type { Database } from "../db/connect.ts";
import { metricsAccess } from "./metrics-access.ts";

export function registerMetrics(app: FastifyInstance, db: Database, options: { token?: string | undefined } = {}) {
  const requests = new Map<string, { count: number; seconds: number }>();
  const started = Date.now();

  app.addHook("onResponse", async (request, reply) => {
    const route = request.routeOptions.url ?? "unmatched";
    const key = `method="${request.method}",route="${route.replace(/"/g, "")}",status="${reply.statusCode}"`;
    const entry = requests.get(key) ?? { count: 0, seconds: 0 };
    entry.count += 1;
    entry.seconds += reply.elapsedTime / 1000;
    requests.set(key, entry);
  });

  app.get("/metrics", { schema: { hide: true }, onRequest: metricsAccess(options.token) }, async (request, reply) => {
    const lines = [
      "# HELP paylink_http_requests_total HTTP requests served.",
      "# TYPE paylink_http_requests_total counter",
      ...[...requests].map(([labels, e]) => `paylink_http_requests_total{${labels}} ${e.count}`),
      "# HELP paylink_http_request_duration_seconds_sum Time spent serving requests.",
      "# TYPE paylink_http_request_duration_seconds_sum counter",
      ...[...requests].map(([labels, e]) => `paylink_http_request_duration_seconds_sum{${labels}} ${e.seconds.toFixed(6)}`),
      "# HELP paylink_uptime_seconds Seconds since the process started serving.",
      "# TYPE paylink_uptime_seconds gauge",
      `paylink_uptime_seconds ${((Date.now() - started) / 1000).toFixed(0)}`,
      ...(await webhookQueueLines(db).then(
        (queue) => [...databaseUpLines(1), ...queue],
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

/** Pending and failed deliveries, and how late the most overdue pending one is (a stalled worker). */
async function webhookQueueLines(db: Database): Promise<string[]> {
  const { rows } = await sql<{ pending: string; failed: string; overdue_seconds: number | null }>`
    SELECT
      (SELECT count(*) FROM webhook_deliveries WHERE state = 'pending') AS pending,
      (SELECT count(*) FROM webhook_deliveries WHERE state = 'failed') AS failed,
      (SELECT extract(epoch FROM now() - min(next_attempt_at))::float8
         FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= now()) AS overdue_seconds
  `.execute(db);
  const row = rows[0]!;
  return [
    "# HELP paylink_webhook_deliveries_pending Webhook deliveries waiting to be sent or retried (all instances).",
    "# TYPE paylink_webhook_deliveries_pending gauge",
    `paylink_webhook_deliveries_pending ${Number(row.pending)}`,
    "# HELP paylink_webhook_deliveries_failed Webhook deliveries that used up their retries and wait for a resend.",
    "# TYPE paylink_webhook_deliveries_failed gauge",
    `paylink_webhook_deliveries_failed ${Number(row.failed)}`,
    "# HELP paylink_webhook_oldest_due_seconds How long the most overdue pending delivery has been due (0 when none is); growth means no worker is sending.",
    "# TYPE paylink_webhook_oldest_due_seconds gauge",
    `paylink_webhook_oldest_due_seconds ${Math.max(0, row.overdue_seconds ?? 0).toFixed(1)}`,
  ];
}
