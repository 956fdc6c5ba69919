// POST /admin/v1/merchants/{id}/webhooks/{webhookId}/rotate: a new HMAC key; the old one stops signing at once.

import { adminActor } from "../http/actor.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { rotateEndpointHmacKey } from "../services/webhook-endpoints.ts";
import { requireMerchant, webhookNotFound } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { WebhookParams } from "./schemas.ts";

export function registerRotateWebhookHmacKey(app: TypedApp, deps: AdminDeps) {
  app.post(
    "/merchants/:merchantId/webhooks/:webhookId/rotate",
    {
      schema: {
        tags: ["Admin: webhooks"],
        summary: "Replace the HMAC key (the new key is returned; the old one stops at once)",
        params: WebhookParams,
      },
    },
    async (request) => {
      const { merchantId, webhookId } = request.params;
      await requireMerchant(deps.db, merchantId);
      const rotated = await rotateEndpointHmacKey(deps, { merchantId, actor: adminActor(request) }, webhookId);
      if (!rotated) throw webhookNotFound(webhookId);
      return { webhookId, hmacKey: rotated.hmacKey };
    },
  );
}
