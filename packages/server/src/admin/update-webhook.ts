// POST /admin/v1/merchants/{id}/webhooks/{webhookId}: change the URL, the Authorization apiKey, or the Dispute opt-in.

import { adminActor } from "../http/actor.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { changeEndpoint } from "../services/webhook-endpoints.ts";
import { checkedWebhookUrl, requireMerchant, webhookNotFound } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { presentEndpoint } from "./present-webhooks.ts";
import { UpdateWebhookBody, WebhookParams } from "./schemas.ts";

export function registerUpdateWebhook(app: TypedApp, deps: AdminDeps) {
  app.post(
    "/merchants/:merchantId/webhooks/:webhookId",
    {
      schema: {
        tags: ["Admin: webhooks"],
        summary: "Change a webhook endpoint's url, apiKey or whether it takes Dispute events",
        params: WebhookParams,
        body: UpdateWebhookBody,
      },
    },
    async (request) => {
      const { merchantId, webhookId } = request.params;
      const { body } = request;
      const url = body.url === undefined ? undefined : checkedWebhookUrl(body.url, deps.allowPrivateTargets);
      await requireMerchant(deps.db, merchantId);
      const endpoint = await changeEndpoint(deps, { merchantId, actor: adminActor(request) }, webhookId, {
        url,
        apiKey: body.apiKey,
        disputeEvents: body.disputeEvents,
      });
      if (!endpoint) throw webhookNotFound(webhookId);
      return presentEndpoint(endpoint);
    },
  );
}
