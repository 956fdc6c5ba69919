// How a Paylink process (`paylink serve`, `paylink worker`) stops: on a signal it finishes what is
// in flight within PAYLINK_SHUTDOWN_GRACE_SECONDS, closes the database and exits, in bounded time
// whatever hangs (docs/operations.md#faults-what-you-see-and-what-to-do).
import closeWithGrace from "close-with-grace";
import pTimeout from "p-timeout";
import type { Logger } from "pino";

/**
 * Waits for a stop signal (SIGTERM, SIGINT…) or an uncaught error, then runs `stop` and exits: 0
 * once it is done, 1 after an error. The last resort: whatever still holds the process, it exits
 * with 1 ten seconds after the grace period; a second signal ends it at once.
 */
export function untilStopped(graceSeconds: number, logger: Logger, stop: (signal: string | undefined) => Promise<void>): Promise<void> {
  return new Promise((stopped) => {
    closeWithGrace(
      { delay: graceSeconds * 1000 + 10_000, logger, onTimeout: () => logger.error("shutdown took too long: exiting now") },
      async ({ signal, err }) => {
        if (err) logger.fatal({ err }, "uncaught error: shutting down");
        await stop(signal);
        stopped();
      },
    );
  });
}

/** A connection that hangs must not keep the process from exiting: the database gets 5 s. */
export async function closeDatabaseWithin5s(database: { close(): Promise<void> }, logger: Logger): Promise<void> {
  await pTimeout(
    database.close().catch((error) => logger.error({ err: error }, "closing the database failed")),
    { milliseconds: 5_000, fallback: () => logger.error("the database did not close within 5 s; exiting without it") },
  );
}
