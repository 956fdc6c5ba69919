// GET /admin/v1/merchants/{id}/webhooks: the merchant's endpoints, secrets masked.

import { listWebhookEndpoints } from "../db/webhook-endpoints-repository.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { presentEndpoint } from "./present-webhooks.ts";
import { MerchantParams } from "./schemas.ts";

export function registerListWebhooks(app: TypedApp, deps: AdminDeps) {
  app.get(
    "/merchants/:merchantId/webhooks",
    { schema: { tags: ["Admin: webhooks"], summary: "List webhook endpoints (secrets masked)", params: MerchantParams } },
    async (request) => {
      const { merchantId } = request.params;
      await requireMerchant(deps.db, merchantId);
      const endpoints = await listWebhookEndpoints(deps.db, deps.keyring, merchantId);
      return { data: endpoints.map(presentEndpoint) };
    },
  );
}
