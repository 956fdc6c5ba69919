// POST /admin/v1/merchants/{id}/webhooks: a new endpoint; its apiKey and hmacKey are returned in clear, once.

import { adminActor } from "../http/actor.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { addEndpoint } from "../services/webhook-endpoints.ts";
import { checkedWebhookUrl, requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { CreateWebhookBody, MerchantParams } from "./schemas.ts";

export function registerCreateWebhook(app: TypedApp, deps: AdminDeps) {
  app.post(
    "/merchants/:merchantId/webhooks",
    {
      schema: {
        tags: ["Admin: webhooks"],
        summary: "Add a webhook endpoint (apiKey and hmacKey returned in clear)",
        params: MerchantParams,
        body: CreateWebhookBody,
      },
    },
    async (request) => {
      const { merchantId } = request.params;
      const url = checkedWebhookUrl(request.body.url, deps.allowPrivateTargets);
      await requireMerchant(deps.db, merchantId);
      const { endpoint, secrets } = await addEndpoint(
        deps,
        { merchantId, actor: adminActor(request) },
        { url, apiKey: request.body.apiKey, disputeEvents: request.body.disputeEvents },
      );
      return {
        webhookId: endpoint.webhookId,
        url: endpoint.url,
        apiKey: secrets.apiKey,
        hmacKey: secrets.hmacKey,
        enabled: endpoint.enabled,
        disputeEvents: endpoint.disputeEvents,
      };
    },
  );
}
