// `paylink worker`: the webhook delivery worker as a process of its own, for PostgreSQL
// deployments that scale sending apart from serving. Any number may run beside `paylink serve`
// instances; they share the work through the database (see worker.ts).
import { ConfigError, loadConfig } from "../config.ts";
import { openDatabase } from "../db/connect.ts";
import { createLogger } from "../logging.ts";
import { startMailWorker } from "../mail/start.ts";
import { closeDatabaseWithin5s, untilStopped } from "../process-stop.ts";
import { checkStoredSecrets, resolveSecretKeyring } from "../security/keyring.ts";
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
  const mailWorker = startMailWorker(config, database, keyring, createLogger(config.logLevel));
  logger.info("Paylink webhook worker running");
  // Bounded like `paylink serve`: sends in flight get the grace period, then are aborted and their
  // deliveries handed back; the database gets 5 s; past grace + 10 s the process exits anyway.
  const graceMs = config.shutdownGraceSeconds * 1000;
  await untilStopped(config.shutdownGraceSeconds, logger, async (signal) => {
    logger.info({ signal, graceSeconds: config.shutdownGraceSeconds }, "shutting down: finishing webhook sends in flight");
    await Promise.all([
      worker.stop(graceMs).catch((error) => logger.error({ err: error }, "stopping the webhook worker failed")),
      mailWorker.stop().catch((error) => logger.error({ err: error }, "stopping the mail worker failed")),
    ]);
    await closeDatabaseWithin5s(database, logger);
    logger.info("stopped");
  });
  return 0;
}
