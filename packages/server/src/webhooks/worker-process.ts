// `paylink worker`: the webhook delivery worker as a process of its own, for PostgreSQL
// deployments that scale sending apart from serving. Any number may run beside `paylink serve`
// instances; they share the work through the database (see worker.ts).
import { ConfigError, loadConfig } from "../config.ts";
import { openDatabase } from "../db/connect.ts";
import { createLogger } from "../logging.ts";
import { checkStoredSecrets, resolveSecretKeyring } from "../security/keyring.ts";
import { withinMs } from "../within.ts";
import { WebhookWorker } from "./worker.ts";

export async function runWorker(): Promise<number> {
  const config = loadConfig();
  if (!config.databaseUrl) {
    throw new ConfigError([
      "paylink worker needs DATABASE_URL (PostgreSQL). On the embedded database only one process can open the data directory, " +
        "so `paylink serve` delivers webhooks itself: just run `paylink serve`.",
    ]);
  }
  const logger = createLogger(config.logLevel).child({ component: "webhooks" });
  const { keyring } = resolveSecretKeyring(config);
  const database = await openDatabase({ kind: "postgres", url: config.databaseUrl });
  try {
    await checkStoredSecrets(database.db, keyring);
  } catch (error) {
    await database.close();
    throw error;
  }
  const worker = new WebhookWorker({
    db: database.db,
    refreshStatistics: true,
    keyring,
    allowPrivate: config.webhookAllowPrivate,
    perEndpointConcurrency: config.webhookEndpointConcurrency,
    logger,
  }).start();
  logger.info("Paylink webhook worker running");
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
  });
  // Bounded like `paylink serve` (D-131, D-213): sends in flight get the grace period, then are
  // aborted and their deliveries handed back; the database gets 5 s; a timer ends the rest.
  const graceMs = config.shutdownGraceSeconds * 1000;
  logger.info({ signal, graceSeconds: config.shutdownGraceSeconds }, "shutting down: finishing webhook sends in flight");
  setTimeout(() => {
    logger.error("shutdown took too long: exiting now");
    process.exit(1);
  }, graceMs + 10_000).unref();
  await worker.stop(graceMs).catch((error) => logger.error({ err: error }, "stopping the webhook worker failed"));
  const closed = await withinMs(
    database.close().catch((error) => logger.error({ err: error }, "closing the database failed")),
    5_000,
  );
  if (!closed) logger.error("the database did not close within 5 s; exiting without it");
  logger.info("stopped");
  return 0;
}
