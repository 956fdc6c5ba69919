// Configuration comes only from environment variables (README.md#configuration). It is parsed once at start and
// every bad variable is reported at once, so an operator fixes them in one go.
import { resolve } from "node:path";
import { DEFAULT_RATE_LIMITS, type RateLimits } from "./http/rate-limit.ts";
import { DEFAULT_PER_ENDPOINT_CONCURRENCY } from "./webhooks/claim.ts";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

export interface Config {
  port: number;
  host: string;
  publicBaseUrl: string;
  /** postgres:// URL; undefined means the embedded database in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  adminToken: string | undefined;
  webhookAllowPrivate: boolean;
  logLevel: LogLevel;
  /** Run the webhook delivery worker inside the server process (always on for the embedded database). */
  runWebhookWorker: boolean;
  /**
   * PAYLINK_SECRET_KEY: 64 hex characters; encrypts webhook API keys and HMAC keys at rest.
   * Required on PostgreSQL (checked at start by security/keyring.ts); on the embedded database a
   * key file in `dataDir` is generated when unset.
   */
  secretKey: string | undefined;
  /** PAYLINK_SECRET_KEY_PREVIOUS: comma-separated older keys, still accepted for decryption (rotation). */
  previousSecretKeys: string[];
  /** PAYLINK_RATE_LIMIT_API and PAYLINK_RATE_LIMIT_CHECKOUT_FAILURES (see http/rate-limit.ts). */
  rateLimits: RateLimits;
  /**
   * PAYLINK_TRUST_PROXY: whose X-Forwarded-For to believe for the client address (Fastify's
   * trustProxy): false, true, a number of hops, or a comma-separated list of addresses/CIDRs.
   */
  trustProxy: boolean | number | string;
  /** PAYLINK_WEBHOOK_LOG_DAYS: how long delivered and failed webhook deliveries are kept (default 90). */
  webhookLogDays: number;
  /**
   * PAYLINK_SHUTDOWN_GRACE_SECONDS: after SIGTERM, how long requests and webhook sends in flight
   * may take before they are cut (default 10); the process exits at most 10 s after that.
   */
  shutdownGraceSeconds: number;
  /** PAYLINK_METRICS_TOKEN: bearer token for GET /metrics; unset, only local unproxied clients may read it. */
  metricsToken: string | undefined;
  /**
   * PAYLINK_WEBHOOK_ENDPOINT_CONCURRENCY: webhook sends in flight per endpoint, over every instance
   * (default 4), so one merchant's slow or silent receiver cannot take every sending slot.
   */
  webhookEndpointConcurrency: number;
  /**
   * SMTP_URL: where e-mail is sent (smtp://user:pass@host:587 with STARTTLS, or smtps:// for TLS
   * from the start). Unset, mail is kept in the database (docs/operations.md#e-mail).
   */
  smtpUrl: string | undefined;
  /** MAIL_FROM: the sender of every e-mail (default: Paylink <no-reply@ the PUBLIC_BASE_URL host>). */
  mailFrom: string;
  /**
   * PAYLINK_PROCESSOR_BASE_URLS: "allow" lets a terminal's processor configuration name its own
   * API base (`baseUrl`: a simulator, a test double); "deny" (the default) keeps every terminal on
   * the processors' real addresses, so an admin token alone cannot send card payments elsewhere.
   */
  processorBaseUrls: ProcessorBaseUrls;
}

export type ProcessorBaseUrls = "allow" | "deny";

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

const LOG_LEVELS: LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];

  const portText = env.PORT ?? "3000";
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    problems.push(`PORT must be a whole number from 0 to 65535, got "${portText}"`);
  }

  const host = env.HOST ?? "0.0.0.0";

  const publicBaseUrl = (env.PUBLIC_BASE_URL ?? `http://localhost:${portText}`).replace(/\/+$/, "");
  if (!isHttpUrl(publicBaseUrl)) {
    problems.push(`PUBLIC_BASE_URL must be an absolute http(s) URL, got "${env.PUBLIC_BASE_URL}"`);
  }

  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push(`DATABASE_URL must start with postgres:// or postgresql:// (unset it to use the embedded database)`);
  }

  const adminToken = env.PAYLINK_ADMIN_TOKEN?.trim() || undefined;
  if (adminToken !== undefined && adminToken.length < 16) {
    problems.push(`PAYLINK_ADMIN_TOKEN must be at least 16 characters long`);
  }

  const webhookAllowPrivate = parseBoolean("PAYLINK_WEBHOOK_ALLOW_PRIVATE", env.PAYLINK_WEBHOOK_ALLOW_PRIVATE, false, problems);
  const runWebhookWorker = parseBoolean("PAYLINK_WEBHOOK_WORKER", env.PAYLINK_WEBHOOK_WORKER, true, problems);
  if (!runWebhookWorker && databaseUrl === undefined) {
    problems.push(`PAYLINK_WEBHOOK_WORKER=false needs DATABASE_URL: on the embedded database only the server process can deliver webhooks`);
  }

  const secretKey = env.PAYLINK_SECRET_KEY?.trim() || undefined;
  if (secretKey !== undefined && !/^[0-9a-fA-F]{64}$/.test(secretKey)) {
    problems.push(`PAYLINK_SECRET_KEY must be 64 hexadecimal characters (generate one with: openssl rand -hex 32)`);
  }
  const previousSecretKeys = (env.PAYLINK_SECRET_KEY_PREVIOUS ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter((key) => key.length > 0);
  if (previousSecretKeys.some((key) => !/^[0-9a-fA-F]{64}$/.test(key))) {
    problems.push(`PAYLINK_SECRET_KEY_PREVIOUS must be a comma-separated list of 64-hex keys`);
  }
  if (previousSecretKeys.length > 0 && secretKey === undefined) {
    problems.push(`PAYLINK_SECRET_KEY_PREVIOUS needs PAYLINK_SECRET_KEY (the key to re-encrypt with)`);
  }

  const apiPerMinute = parseCount("PAYLINK_RATE_LIMIT_API", env.PAYLINK_RATE_LIMIT_API, DEFAULT_RATE_LIMITS.apiPerMinute, problems);
  const checkoutFailures = parseCount(
    "PAYLINK_RATE_LIMIT_CHECKOUT_FAILURES",
    env.PAYLINK_RATE_LIMIT_CHECKOUT_FAILURES,
    DEFAULT_RATE_LIMITS.checkoutFailures,
    problems,
  );
  const trustProxy = parseTrustProxy(env.PAYLINK_TRUST_PROXY, problems);
  const webhookLogDays = parseCount("PAYLINK_WEBHOOK_LOG_DAYS", env.PAYLINK_WEBHOOK_LOG_DAYS, 90, problems);
  if (webhookLogDays < 1) problems.push(`PAYLINK_WEBHOOK_LOG_DAYS must be at least 1 (days of delivery log to keep)`);
  const webhookEndpointConcurrency = parseCount(
    "PAYLINK_WEBHOOK_ENDPOINT_CONCURRENCY",
    env.PAYLINK_WEBHOOK_ENDPOINT_CONCURRENCY,
    DEFAULT_PER_ENDPOINT_CONCURRENCY,
    problems,
  );
  if (webhookEndpointConcurrency < 1 || webhookEndpointConcurrency > 16)
    problems.push(`PAYLINK_WEBHOOK_ENDPOINT_CONCURRENCY must be from 1 to 16 (a worker sends 16 at a time)`);

  const shutdownGraceSeconds = parseCount("PAYLINK_SHUTDOWN_GRACE_SECONDS", env.PAYLINK_SHUTDOWN_GRACE_SECONDS, 10, problems);
  if (shutdownGraceSeconds < 1 || shutdownGraceSeconds > 3600)
    problems.push(`PAYLINK_SHUTDOWN_GRACE_SECONDS must be from 1 to 3600 (seconds requests may take to finish after SIGTERM)`);

  const metricsToken = env.PAYLINK_METRICS_TOKEN?.trim() || undefined;
  if (metricsToken !== undefined && metricsToken.length < 16) problems.push(`PAYLINK_METRICS_TOKEN must be at least 16 characters long`);

  const smtpUrl = env.SMTP_URL?.trim() || undefined;
  // Never repeat the URL itself: it may hold the SMTP password.
  if (smtpUrl !== undefined && !isSmtpUrl(smtpUrl)) problems.push(`SMTP_URL must be an smtp:// or smtps:// URL with a host`);
  const mailFrom = env.MAIL_FROM?.trim() || `Paylink <no-reply@${hostOf(publicBaseUrl)}>`;
  if (!/^[^@\s<>]+@[^@\s<>]+$|<[^@\s<>]+@[^@\s<>]+>$/.test(mailFrom))
    problems.push(`MAIL_FROM must be an e-mail address, optionally with a name: "Shop <no-reply@example.com>", got "${mailFrom}"`);

  const processorBaseUrlsText = env.PAYLINK_PROCESSOR_BASE_URLS?.trim().toLowerCase() || "deny";
  const processorBaseUrls: ProcessorBaseUrls = processorBaseUrlsText === "allow" ? "allow" : "deny";
  if (processorBaseUrlsText !== "allow" && processorBaseUrlsText !== "deny")
    problems.push(`PAYLINK_PROCESSOR_BASE_URLS must be allow or deny, got "${env.PAYLINK_PROCESSOR_BASE_URLS}"`);

  const logLevel = (env.LOG_LEVEL ?? "info") as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${env.LOG_LEVEL}"`);
  }

  if (problems.length > 0) throw new ConfigError(problems);

  return {
    port,
    host,
    publicBaseUrl,
    databaseUrl,
    dataDir: resolve(env.PAYLINK_DATA_DIR ?? "./data"),
    adminToken,
    webhookAllowPrivate,
    logLevel,
    runWebhookWorker,
    secretKey,
    previousSecretKeys,
    rateLimits: { ...DEFAULT_RATE_LIMITS, apiPerMinute, checkoutFailures },
    trustProxy,
    webhookLogDays,
    shutdownGraceSeconds,
    metricsToken,
    webhookEndpointConcurrency,
    smtpUrl,
    mailFrom,
    processorBaseUrls,
  };
}

/** Settings that work but are unsafe: logged at `warn` when the server starts. */
export function startupWarnings(config: Config): string[] {
  const warnings: string[] = [];
  if (config.trustProxy === true)
    warnings.push(
      "PAYLINK_TRUST_PROXY=true believes the first address of X-Forwarded-For, which any client can write: a fresh made-up " +
        "address per request escapes the rate limits and the checkout brake. Set the number of proxy hops (e.g. 1) or the " +
        "proxies' addresses/CIDRs instead.",
    );
  if (config.processorBaseUrls === "allow")
    warnings.push(
      "PAYLINK_PROCESSOR_BASE_URLS=allow lets the admin API send a terminal's payments and its processor credentials to any " +
        "address (baseUrl). Meant for tests and processor simulators; leave it unset in production.",
    );
  return warnings;
}

/** A whole number ≥ 0. */
function parseCount(name: string, value: string | undefined, fallback: number, problems: string[]): number {
  if (value === undefined || value.trim() === "") return fallback;
  if (!/^\d{1,9}$/.test(value.trim())) {
    problems.push(`${name} must be a whole number, got "${value}"`);
    return fallback;
  }
  return Number(value.trim());
}

function parseTrustProxy(value: string | undefined, problems: string[]): boolean | number | string {
  const text = value?.trim() ?? "";
  if (text === "" || /^(false|0|no)$/i.test(text)) return false;
  if (/^(true|yes)$/i.test(text)) return true;
  if (/^\d{1,2}$/.test(text)) return Number(text);
  const entries = text.split(",").map((entry) => entry.trim());
  if (entries.every((entry) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(entry))) return entries.join(",");
  problems.push(
    `PAYLINK_TRUST_PROXY must be true, false, a number of proxy hops, or a comma-separated list of proxy addresses/CIDRs, got "${value}"`,
  );
  return false;
}

function parseBoolean(name: string, value: string | undefined, fallback: boolean, problems: string[]): boolean {
  if (value === undefined || value === "") return fallback;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  problems.push(`${name} must be true or false, got "${value}"`);
  return fallback;
}

function isSmtpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "smtp:" || url.protocol === "smtps:") && url.hostname !== "";
  } catch {
    return false;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname || "localhost";
  } catch {
    return "localhost";
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
