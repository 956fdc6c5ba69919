// /api/v1: the merchant-facing payment-link and after-sale API. Every route here is authenticated by API key
// and protected by Idempotency-Key handling on POST.
import type { FastifyInstance } from "fastify";
import { apiKeyAuth } from "../http/auth.ts";
import { inMemoryAuthBrake, NO_AUTH_BRAKE, sharedAuthBrake } from "../http/auth-brake.ts";
import { requireJsonContentType } from "../http/content-type.ts";
import { idempotency } from "../http/idempotency.ts";
import { apiRateLimit } from "../http/rate-limit.ts";
import { typed } from "../http/typed-app.ts";
import { anyCaseValidatorCompiler } from "../http/validation.ts";
import { registerAdjust } from "./adjust.ts";
import { registerCapture } from "./capture.ts";
import type { ApiDeps } from "./deps.ts";
import { registerCreateLink } from "./links-create.ts";
import { registerDisableLink } from "./links-disable.ts";
import { registerGetLink } from "./links-get.ts";
import { registerListLinks } from "./links-list.ts";
import { registerUpdateLink } from "./links-update.ts";
import { registerChargeToken } from "./payment-charge.ts";
import { registerPaymentDisableToken } from "./payment-disable-token.ts";
import { registerGetPayment } from "./payments-get.ts";
import { registerRefund } from "./refund.ts";
import { registerReverse } from "./reverse.ts";
import { registerCreateSession } from "./sessions-create.ts";
import { registerSessionStatus } from "./sessions-status.ts";
import { registerDisableToken } from "./tokens-disable.ts";

export async function apiRoutes(instance: FastifyInstance, deps: ApiDeps) {
  // Clients written for Straumur's payment-links API spell property names in any letter case.
  instance.setValidatorCompiler(anyCaseValidatorCompiler);
  const app = typed(instance);
  const keyed = idempotency(deps.db);
  // Before authentication: a flood of requests costs no database lookups once it is limited.
  const rateLimit = apiRateLimit(app, deps.apiRateLimitPerMinute ?? 0, deps.sharedRateLimit ? deps.db : undefined);
  if (rateLimit) app.addHook("onRequest", rateLimit);
  // Wrong keys per address: shared by the instances on PostgreSQL like the limit (docs/decisions.md#rate-limits), else in memory.
  const limited = (deps.apiRateLimitPerMinute ?? 0) > 0;
  const brake = !limited ? NO_AUTH_BRAKE : deps.sharedRateLimit ? sharedAuthBrake(deps.db) : inMemoryAuthBrake();
  app.addHook("onRequest", apiKeyAuth(deps.db, brake));
  app.addHook("onRequest", requireJsonContentType);
  // Idempotency-Key handling is for POST: only POST routes get its two hooks, so a read passes none.
  app.addHook("onRoute", (route) => {
    if (route.method !== "POST") return;
    route.preHandler = [...[route.preHandler ?? []].flat(), keyed.preHandler];
    route.onSend = [...[route.onSend ?? []].flat(), keyed.onSend];
  });

  registerCreateLink(app, deps);
  registerGetLink(app, deps);
  registerUpdateLink(app, deps);
  registerListLinks(app, deps);
  registerDisableLink(app, deps);
  // After the link: saved cards, refunds, reversals.
  registerChargeToken(app, deps);
  registerRefund(app, deps);
  registerReverse(app, deps);
  registerDisableToken(app, deps);
  registerGetPayment(app, deps);
  registerPaymentDisableToken(app, deps);
  // Hosted-checkout sessions: one per order, the e-commerce plugins' way in.
  registerCreateSession(app, deps);
  registerSessionStatus(app, deps);
  registerCapture(app, deps);
  registerAdjust(app, deps);
}
