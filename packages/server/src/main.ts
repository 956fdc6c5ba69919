// The server process: config → database → demo bootstrap → app → listen; clean shutdown on signals.
import type { Server } from "node:http";
import pTimeout from "p-timeout";
import type { Logger } from "pino";
import { buildApp } from "./app.ts";
import { cleanCheckoutBrake } from "./checkout/brake.ts";
import { type Config, loadConfig, startupWarnings } from "./config.ts";
import { type DatabaseHandle, openDatabase } from "./db/connect.ts";
import { deleteExpiredIdempotencyKeys } from "./db/idempotency-repository.ts";
import { deleteOldRateCounters } from "./db/rate-counters-repository.ts";
import { deleteOldDeliveries } from "./db/webhook-deliveries-repository.ts";
import { bootstrapDemo, demoInstructions } from "./demo.ts";
import { createLogger } from "./logging.ts";
import { startMailWorker } from "./mail/start.ts";
import type { MailWorker } from "./mail/worker.ts";
import { SandboxProcessor } from "./payments/sandbox.ts";
import { closeDatabaseWithin5s, untilStopped } from "./process-stop.ts";
import { checkStoredSecrets, resolveSecretKeyring } from "./security/keyring.ts";
import { reconcileHostedAttempts } from "./services/hosted-payment.ts";
import { processorDirectory } from "./services/processor-directory.ts";
import { reconcileAfterSale } from "./services/reconcile-after-sale.ts";
import { reconcileStalePayments } from "./services/reconcile-payments.ts";
import { WebhookWorker } from "./webhooks/worker.ts";

export async function serve(config: Config = loadConfig()): Promise<{ close(): Promise<void>; url: string }> {
  const logger = createLogger(config.logLevel);
  // Before the database: on PostgreSQL a missing PAYLINK_SECRET_KEY is a configuration error.
  const secrets = resolveSecretKeyring(config);
  const database: DatabaseHandle = await openDatabase(
    config.databaseUrl ? { kind: "postgres", url: config.databaseUrl } : { kind: "pglite", dataDir: config.dataDir },
  );
  try {
    const reencrypted = await checkStoredSecrets(database.db, secrets.keyring);
    if (reencrypted > 0)
      logger.info({ rows: reencrypted }, "webhook and two-factor secrets re-encrypted under the current PAYLINK_SECRET_KEY");
  } catch (error) {
    await database.close();
    throw error;
  }
  if (secrets.source === "generated-file")
    logger.info({ file: secrets.file }, "generated the key that encrypts webhook secrets; back it up with the data directory");
  for (const warning of startupWarnings(config)) logger.warn(warning);
  let worker: WebhookWorker | undefined;
  let mailWorker: MailWorker | undefined;

  const graceMs = config.shutdownGraceSeconds * 1000;
  const close = onceAsync(async () => {
    clearInterval(maintenance);
    clearInterval(reconciler);
    // The HTTP server and the webhook worker drain side by side, each for at most the grace period:
    // requests in flight finish (new ones are refused: http/shutdown.ts), sends in flight finish
    // or are aborted and handed back. A payment finishing meanwhile leaves its webhook in the
    // outbox for the next worker, so nothing is lost by stopping the worker early.
    await Promise.all([
      drainHttp(app, graceMs, logger),
      worker?.stop(graceMs).catch((error) => logger.error({ err: error }, "stopping the webhook worker failed")),
      mailWorker?.stop().catch((error) => logger.error({ err: error }, "stopping the mail worker failed")),
    ]);
    // Bounded too: a connection that hangs must not keep the process from exiting.
    await closeDatabaseWithin5s(database, logger);
    logger.info("stopped");
  });

  let maintenance: NodeJS.Timeout | undefined;
  let reconciler: NodeJS.Timeout | undefined;
  // One processor for the pages and the reconciler (docs/checkout.md#sandbox-cards: the sandbox unless configured otherwise).
  const processor = new SandboxProcessor();
  const app = await buildApp({
    processor,
    db: database.db,
    publicBaseUrl: config.publicBaseUrl,
    adminToken: config.adminToken,
    logger,
    rateLimits: config.rateLimits,
    // Several instances share PostgreSQL; the embedded database has one process.
    sharedRateLimit: database.kind === "postgres",
    trustProxy: config.trustProxy,
    metricsToken: config.metricsToken,
    allowPrivateTargets: config.webhookAllowPrivate,
    allowProcessorBaseUrls: config.processorBaseUrls === "allow",
    keyring: secrets.keyring,
  });
  try {
    if (!config.adminToken) {
      const demo = await bootstrapDemo(database.db);
      if (demo) process.stdout.write(`${demoInstructions(demo, config.publicBaseUrl)}\n`);
      else if (!config.databaseUrl) {
        process.stdout.write(
          `\n  Using the existing embedded database in ${config.dataDir}.\n` +
            `  The demo credentials were printed on its first start; delete that directory to start over.\n\n`,
        );
      }
    }
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await close();
    throw error;
  }

  // Always on the embedded database: no other process can reach it.
  if (config.runWebhookWorker || !config.databaseUrl) {
    worker = new WebhookWorker({
      db: database.db,
      refreshStatistics: database.kind === "postgres",
      keyring: secrets.keyring,
      allowPrivate: config.webhookAllowPrivate,
      perEndpointConcurrency: config.webhookEndpointConcurrency,
      logger: logger.child({ component: "webhooks" }),
    }).start();
    // Mail goes with the webhooks: the same switch decides which processes send.
    mailWorker = startMailWorker(config, database, secrets.keyring, logger);
  }

  maintenance = setInterval(
    () => {
      deleteExpiredIdempotencyKeys(database.db).catch((error) => logger.warn({ err: error }, "idempotency clean-up failed"));
      deleteOldDeliveries(database.db, config.webhookLogDays)
        .then(
          (count) =>
            count > 0 &&
            logger.info({ deliveries: count, olderThanDays: config.webhookLogDays }, "old webhook deliveries removed from the log"),
        )
        .catch((error) => logger.warn({ err: error }, "delivery log clean-up failed"));
    },
    60 * 60 * 1000,
  );
  maintenance.unref();
  // Payments whose outcome never arrived (lost reply, crashed instance): reversed and released.
  // And the checkout brake's counters of ended windows, which nothing reads any more.
  reconciler = setInterval(() => {
    if (database.kind === "postgres")
      deleteOldRateCounters(database.db).catch((error) => logger.warn({ err: error }, "rate counter clean-up failed"));
    reconcileStalePayments({ db: database.db, processor, tokenProcessor: processor, log: logger }).catch((error) =>
      logger.warn({ err: error }, "payment reconciliation failed"),
    );
    // Payments on a real processor's page whose outcome is late: the processor is asked.
    const processors = processorDirectory({ db: database.db, keyring: secrets.keyring });
    reconcileHostedAttempts({ db: database.db, now: () => new Date(), log: logger, processors }).catch((error) =>
      logger.warn({ err: error }, "hosted payment reconciliation failed"),
    );
    // Refunds whose processor answer was lost are asked again; saved-card charges with a lost answer are reversed.
    reconcileAfterSale({
      db: database.db,
      processor,
      processors,
      publicBaseUrl: config.publicBaseUrl,
      log: logger,
      now: () => new Date(),
    }).catch((error) => logger.warn({ err: error }, "after-sale reconciliation failed"));
    void cleanCheckoutBrake(database.db, new Date(), logger);
  }, 60 * 1000);
  reconciler.unref();

  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  logger.info(
    { database: database.kind === "pglite" ? `embedded (${config.dataDir})` : "postgresql", port },
    `Paylink listening on ${config.publicBaseUrl}`,
  );
  return { close, url: `http://127.0.0.1:${port}` };
}

/** Runs the server until a signal (SIGTERM, SIGINT…), then drains requests and closes the database. */
export async function runServer(): Promise<number> {
  const config = loadConfig();
  const server = await serve(config);
  const logger = createLogger(config.logLevel);
  await untilStopped(config.shutdownGraceSeconds, logger, async (signal) => {
    logger.info({ signal, graceSeconds: config.shutdownGraceSeconds }, "shutting down: finishing requests and webhook sends in flight");
    await server.close();
  });
  return 0;
}

/** Closes the listener and waits for requests in flight; after `graceMs` their connections are cut. */
async function drainHttp(app: { close(): Promise<unknown>; server: Server }, graceMs: number, logger: Logger) {
  const closing = app.close().catch((error) => logger.error({ err: error }, "closing the HTTP server failed"));
  await pTimeout(closing, {
    milliseconds: graceMs,
    fallback: async () => {
      logger.warn({ graceMs }, "requests still running after the shutdown grace period: closing their connections");
      app.server.closeAllConnections();
      await pTimeout(closing, { milliseconds: 1_000, message: false });
    },
  });
}

function onceAsync(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}
