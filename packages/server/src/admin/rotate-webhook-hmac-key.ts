// POST /admin/v1/merchants/{id}/webhooks/{webhookId}/rotate: a new HMAC key; the old one stops signing at once.

import { rotateWebhookHmacKey } from "../db/webhook-endpoints-repository.ts";
import { adminActor } from "../http/actor.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { changeAndRecord } from "../services/audit.ts";
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
      const actor = adminActor(request);
      const rotated = await changeAndRecord(
        deps.db,
        (trx) => rotateWebhookHmacKey(trx, deps.keyring, merchantId, webhookId),
        (done) => done && { merchantId, actor, action: "webhook.secret-rotate", object: { type: "webhook-endpoint", id: webhookId } },
      );
      if (!rotated) throw webhookNotFound(webhookId);
      return { webhookId, hmacKey: rotated.hmacKey };
    },
  );
}
