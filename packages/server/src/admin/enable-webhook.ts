// POST /admin/v1/merchants/{id}/webhooks/{webhookId}/enable and …/disable. Idempotent. A disabled
// endpoint gets no new deliveries; the ones already queued wait and go out when it is enabled again.

import { adminActor } from "../http/actor.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { setEndpointEnabled } from "../services/webhook-endpoints.ts";
import { requireMerchant, webhookNotFound } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { presentEndpoint } from "./present-webhooks.ts";
import { WebhookParams } from "./schemas.ts";

const SUMMARIES = {
  enable: "Enable a webhook endpoint (deliveries held while it was disabled go out at once)",
  disable: "Disable a webhook endpoint (new payments queue nothing for it; queued deliveries wait)",
};

export function registerEnableWebhook(app: TypedApp, deps: AdminDeps) {
  for (const action of ["enable", "disable"] as const) {
    const enabled = action === "enable";
    app.post(
      `/merchants/:merchantId/webhooks/:webhookId/${action}`,
      { schema: { tags: ["Admin: webhooks"], summary: SUMMARIES[action], params: WebhookParams } },
      async (request) => {
        const { merchantId, webhookId } = request.params;
        await requireMerchant(deps.db, merchantId);
        const endpoint = await setEndpointEnabled(deps, { merchantId, actor: adminActor(request) }, webhookId, enabled);
        if (!endpoint) throw webhookNotFound(webhookId);
        return presentEndpoint(endpoint);
      },
    );
  }
}
