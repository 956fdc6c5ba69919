// Kept ours: no library or plugin refuses requests at shutdown in our error format with Retry-After.
// Shutting down (SIGTERM): requests already running finish; a request that still arrives on an
// open keep-alive connection is answered 503 `5004` with Retry-After and `Connection: close`, so a
// load balancer moves it to another instance. New connections are refused once the listener is
// closed. Fastify's own 503 for this is turned off (return503OnClosing) because its body is not
// our error envelope and carries no Retry-After. The listener's close waits for every connection
// to end, and closes only those idle when it starts: a keep-alive connection whose request was
// still running then is closed as soon as it is idle, or it would hold the shutdown for Fastify's
// keepAliveTimeout (72 s).
import type { FastifyInstance } from "fastify";
import { AppError } from "../domain/errors.ts";

/** Seconds a client is asked to wait before retrying a request this stopping instance refused. */
const SHUTDOWN_RETRY_AFTER_SECONDS = 2;

export function registerShutdownGate(app: FastifyInstance): void {
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  // Callback hooks, not async ones: every request passes here, and an async hook costs a promise
  // and a microtask turn each time for a check that is almost always false.
  app.addHook("onResponse", (_request, _reply, done) => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
    done();
  });
  app.addHook("onRequest", (_request, _reply, done) => {
    if (!closing) return done();
    done(
      new AppError("ShuttingDown", `This server is restarting. Retry after ${SHUTDOWN_RETRY_AFTER_SECONDS} seconds.`, {
        "retry-after": String(SHUTDOWN_RETRY_AFTER_SECONDS),
        connection: "close",
      }),
    );
  });
}
