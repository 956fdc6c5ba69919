// `paylink worker`: the webhook delivery worker as a process of its own, for PostgreSQL
// deployments that scale sending apart from serving. Any number may run beside `paylink serve`
// instances; they share the work through the database (see worker.ts).
import { ConfigError, loadConfig } from "../config.ts";
import { openDatabase } from "../db/connect.ts";
import { createLogger } from "../logging.ts";
import { checkStoredSecrets, resolveSecretKeyring } from "../security/keyring.ts";
import { startWebhookWorker } from "./worker.ts";

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
  const worker = startWebhookWorker({
    db: database.db,
    keyring,
    allowPrivate: config.webhookAllowPrivate,
    perEndpointConcurrency: config.webhookEndpointConcurrency,
    logger,
  });
  logger.info("Paylink webhook worker running");
  await new Promise<void>((resolve) => {
    process.once("SIGTERM", () => resolve());
    process.once("SIGINT", () => resolve());
  });
  await worker.stop();
  await database.close();
  logger.info("stopped");
  return 0;
}
