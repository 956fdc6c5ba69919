// The mail worker as `paylink serve` and `paylink worker` start it, from the configuration.
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { DatabaseHandle } from "../db/connect.ts";
import type { SecretKeyring } from "../security/keyring.ts";
import { smtpTransport } from "./transport.ts";
import { MailWorker } from "./worker.ts";

export function startMailWorker(config: Config, database: DatabaseHandle, keyring: SecretKeyring, logger: Logger): MailWorker {
  const mailLogger = logger.child({ component: "mail" });
  if (config.smtpUrl) mailLogger.info("mail worker running: e-mail is sent through SMTP_URL");
  else mailLogger.info("SMTP_URL is not set: e-mail is kept in the database (paylink mail lists it), not sent");
  return new MailWorker({
    db: database.db,
    transport: config.smtpUrl ? smtpTransport(config.smtpUrl, config.mailFrom) : undefined,
    keyring,
    // The demo shows every message; a PostgreSQL deployment's log is no mailbox.
    logKept: database.kind !== "postgres",
    publicBaseUrl: config.publicBaseUrl,
    logger: mailLogger,
  }).start();
}
