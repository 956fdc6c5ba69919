// POST /admin/v1/merchants/{id}/deliveries/{deliveryId}/resend: send again now, with a fresh
// retry schedule and the same webhook-id (receivers deduplicate on it).

import { resendDelivery } from "../db/webhook-deliveries-repository.ts";
import { AppError } from "../domain/errors.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { notifyWebhookWorker } from "../webhooks/outbox.ts";
import { requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { DeliveryParams } from "./schemas.ts";

export function registerResendDelivery(app: TypedApp, deps: AdminDeps) {
  app.post(
    "/merchants/:merchantId/deliveries/:deliveryId/resend",
    {
      schema: {
        tags: ["Admin: webhooks"],
        summary: "Send a delivery again now, with a fresh retry schedule and the same webhook-id",
        params: DeliveryParams,
      },
    },
    async (request) => {
      const { merchantId, deliveryId } = request.params;
      await requireMerchant(deps.db, merchantId);
      const outcome = await resendDelivery(deps.db, merchantId, deliveryId);
      if (outcome === "not-found") throw new AppError("NotFound", `No delivery with id ${JSON.stringify(deliveryId)} for this merchant.`);
      if (outcome === "in-flight") {
        throw new AppError(
          "StateConflict",
          "This delivery is being sent right now; look at its outcome in the delivery log and resend afterwards if needed.",
        );
      }
      notifyWebhookWorker();
      return { deliveryId, state: "Pending" };
    },
  );
}
