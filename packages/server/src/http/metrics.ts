// GET /metrics: Prometheus text format. Counts requests by route and status, and their total
// duration, without a client library: the format is a few lines of text.
import type { FastifyInstance } from "fastify";

export function registerMetrics(app: FastifyInstance) {
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

  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
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
    ];
    return reply.type("text/plain; version=0.0.4").send(lines.join("\n") + "\n");
  });
}
