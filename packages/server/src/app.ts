// buildApp: every plugin and route module of Paylink, registered explicitly, in one place.
import { randomUUID } from "node:crypto";
import swagger from "@fastify/swagger";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from "fastify";
import { sql } from "kysely";
import { adminRoutes } from "./admin/index.ts";
import type { ApiDeps } from "./api/deps.ts";
import { registerDocs } from "./api/docs.ts";
import { apiRoutes } from "./api/index.ts";
import { openApiOptions } from "./api/openapi-document.ts";
import { checkoutRoutes, sendCheckoutNotFound } from "./checkout/index.ts";
import type { Database } from "./db/connect.ts";
import { DATABASE_RETRY_AFTER_SECONDS } from "./db/unavailable.ts";
import { AppError } from "./domain/errors.ts";
import { clientErrorHandler } from "./http/client-errors.ts";
import { useStrictJsonParser } from "./http/content-type.ts";
import { jsonErrorHandler, jsonNotFound, sendError } from "./http/errors.ts";
import { registerMetrics } from "./http/metrics.ts";
import { warnOfUntrustedProxy } from "./http/proxy-warning.ts";
import { NO_RATE_LIMITS, type RateLimits, registerRateLimitStore } from "./http/rate-limit.ts";
import { lazyRequestLogger } from "./http/request-logger.ts";
import { registerShutdownGate } from "./http/shutdown.ts";
import { validatorCompiler } from "./http/validation.ts";
import { type AfterSaleProcessor, isAfterSaleProcessor, type PaymentProcessor } from "./payments/processor.ts";
import { SandboxProcessor } from "./payments/sandbox.ts";
import { portalRoutes, sendPortalNotFound } from "./portal/index.ts";
import { shopperAuthenticationRoute } from "./processors/authenticate-route.ts";
import { processorWebhookRoutes } from "./processors/webhook-route.ts";
import type { SecretKeyring } from "./security/keyring.ts";
import { type ProcessorDirectory, processorDirectory } from "./services/processor-directory.ts";

export interface AppDeps {
  db: Database;
  publicBaseUrl: string;
  adminToken?: string | undefined;
  /** A pino logger; tests usually pass none (silent). */
  logger?: FastifyBaseLogger;
  now?: () => Date;
  /** The card processor of the checkout page; default: the deterministic sandbox (docs/checkout.md#sandbox-cards). */
  processor?: PaymentProcessor;
  /**
   * Charges saved cards, refunds and reverses. Default: the checkout's processor when it can, else
   * a sandbox (which needs no memory of the checkout's calls, docs/decisions.md docs/decisions.md#saved-cards).
   */
  afterSaleProcessor?: AfterSaleProcessor;
  /** How long a second post of one form waits for the first's result before the 202 page (default 20 s). */
  duplicateWaitMs?: number;
  /** The server passes the configured limits; an app built without them (tests) has none. */
  rateLimits?: RateLimits;
  /** Encrypts webhook endpoint secrets at rest (PAYLINK_SECRET_KEY). */
  keyring: SecretKeyring;
  /** PAYLINK_WEBHOOK_ALLOW_PRIVATE: webhook URLs and logo downloads may reach private addresses. */
  allowPrivateTargets?: boolean;
  /** PAYLINK_PROCESSOR_BASE_URLS=allow: the admin API accepts a terminal's processor with its own API base (`baseUrl`). */
  allowProcessorBaseUrls?: boolean;
  /** Share the API rate limit with every instance on the database (PostgreSQL); default: this instance's memory. */
  sharedRateLimit?: boolean;
  /** PAYLINK_METRICS_TOKEN: the bearer token /metrics asks for; without it only local, unproxied clients may read it. */
  metricsToken?: string | undefined;
  /** Fastify's trustProxy: which X-Forwarded-For hops give the client address. */
  trustProxy?: boolean | number | string;
  /** The real processors of terminals that have one; default: read from each terminal's configuration. */
  processors?: ProcessorDirectory;
  /** How long an unused portal session lives (default 30 minutes); tests shorten it. */
  portalSessionIdleSeconds?: number;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const now = deps.now ?? (() => new Date());
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger, childLoggerFactory: lazyRequestLogger } : { logger: false }),
    bodyLimit: 1024 * 1024,
    genReqId: () => randomUUID(),
    // Trusting a client-sent request id would let it forge responseIdentifier values.
    requestIdHeader: false,
    // http/shutdown.ts answers requests that arrive while closing, in our own error format.
    return503OnClosing: false,
    // Fastify's overloads cannot narrow a union here; each member is a valid trustProxy value.
    trustProxy: (deps.trustProxy ?? false) as FastifyServerOptions["trustProxy"] & string,
    // The router refuses some URLs before any route or error handler runs (a path parameter over
    // 100 characters, broken percent-encoding). Nothing can exist at such an address: answer 404
    // in the format of the part of Paylink the URL points at, never Fastify's own body.
    clientErrorHandler,
    frameworkErrors: (_error, request, reply) => {
      if (request.url.startsWith("/pay/")) return sendCheckoutNotFound(request, reply);
      if (request.url.startsWith("/portal/")) return sendPortalNotFound(request, reply);
      const path = request.url.split("?")[0]!;
      const shown = path.length > 80 ? `${path.slice(0, 80)}…` : path;
      return sendError(request, reply, new AppError("NotFound", `There is nothing at ${shown}.`));
    },
  });
  const rateLimits = deps.rateLimits ?? NO_RATE_LIMITS;
  app.setValidatorCompiler(validatorCompiler);
  useStrictJsonParser(app);
  // Every part below sets its own error handler too, so an error raised while one of them answers
  // an error reaches this one, which still answers in our format (http/errors.ts).
  app.setErrorHandler(jsonErrorHandler);
  app.setNotFoundHandler(jsonNotFound);

  await app.register(
    swagger,
    openApiOptions(() => deps.publicBaseUrl),
  );

  registerShutdownGate(app);
  if (!deps.trustProxy) warnOfUntrustedProxy(app);
  registerMetrics(app, deps.db, { token: deps.metricsToken });
  await registerRateLimitStore(app);

  app.get("/healthz", { schema: { hide: true } }, async () => ({ status: "ok" }));
  app.get("/readyz", { schema: { hide: true } }, async (request, reply) => {
    try {
      await sql`SELECT 1`.execute(deps.db);
      return { status: "ready" };
    } catch (error) {
      request.log.warn({ err: error }, "database not reachable");
      return reply.code(503).header("retry-after", String(DATABASE_RETRY_AFTER_SECONDS)).send({ status: "database unreachable" });
    }
  });

  const processor = deps.processor ?? new SandboxProcessor();
  const processors = deps.processors ?? processorDirectory({ db: deps.db, keyring: deps.keyring });
  const afterSaleProcessor = deps.afterSaleProcessor ?? (isAfterSaleProcessor(processor) ? processor : new SandboxProcessor());
  // A getter, so a server that learns its port after listening (tests) still builds right URLs.
  const apiDeps: ApiDeps = {
    db: deps.db,
    get publicBaseUrl() {
      return deps.publicBaseUrl;
    },
    now,
    processor: afterSaleProcessor,
    processors,
    apiRateLimitPerMinute: rateLimits.apiPerMinute,
    sharedRateLimit: deps.sharedRateLimit ?? false,
  };
  await app.register(
    async (api) => {
      api.setErrorHandler(jsonErrorHandler);
      return apiRoutes(api, apiDeps);
    },
    { prefix: "/api/v1" },
  );
  if (deps.adminToken) {
    const adminToken = deps.adminToken;
    await app.register(
      async (admin) => {
        admin.setErrorHandler(jsonErrorHandler);
        return adminRoutes(admin, {
          db: deps.db,
          adminToken,
          keyring: deps.keyring,
          allowPrivateTargets: deps.allowPrivateTargets ?? false,
          get publicBaseUrl() {
            return deps.publicBaseUrl;
          },
          allowProcessorBaseUrls: deps.allowProcessorBaseUrls ?? false,
        });
      },
      {
        prefix: "/admin/v1",
      },
    );
  }
  // Payment links at /pay, hosted-checkout sessions at /checkout: one page, one payment path.
  for (const [kind, prefix] of [
    ["link", "/pay"],
    ["session", "/checkout"],
  ] as const) {
    await app.register(
      async (pay) =>
        checkoutRoutes(pay, {
          kind,
          db: deps.db,
          get publicBaseUrl() {
            return deps.publicBaseUrl;
          },
          now,
          processor,
          tokenProcessor: afterSaleProcessor,
          processors,
          rateLimits,
          ...(deps.duplicateWaitMs !== undefined ? { duplicateWaitMs: deps.duplicateWaitMs } : {}),
        }),
      { prefix },
    );
  }
  await app.register(
    async (portal) =>
      portalRoutes(portal, {
        db: deps.db,
        get publicBaseUrl() {
          return deps.publicBaseUrl;
        },
        now,
        keyring: deps.keyring,
        processor: afterSaleProcessor,
        processors,
        allowPrivateTargets: deps.allowPrivateTargets ?? false,
        ...(deps.portalSessionIdleSeconds !== undefined ? { sessionIdleSeconds: deps.portalSessionIdleSeconds } : {}),
      }),
    { prefix: "/portal" },
  );
  // Real processors' notifications (no API key, each signed by its processor's own scheme), and
  // the shopper's way to a processor's 3-D Secure page for a saved-card charge.
  await app.register(
    async (processorRoutes) => {
      await processorWebhookRoutes(processorRoutes, { db: deps.db, now, processors });
      await shopperAuthenticationRoute(processorRoutes, { db: deps.db });
    },
    { prefix: "/processors" },
  );
  await registerDocs(app);
  return app;
}
