// GET /admin/v1/merchants/{id}/deliveries: the delivery log, newest first, each delivery with every attempt.

import { listDeliveries } from "../db/webhook-deliveries-repository.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { presentDelivery } from "./present-webhooks.ts";
import { DeliveriesQuery, MerchantParams } from "./schemas.ts";

const STATES = { Pending: "pending", Delivered: "delivered", Failed: "failed" } as const;

export function registerListDeliveries(app: TypedApp, deps: AdminDeps) {
  app.get(
    "/merchants/:merchantId/deliveries",
    {
      schema: {
        tags: ["Admin: webhooks"],
        summary: "The delivery log: deliveries newest first, each with its attempts",
        params: MerchantParams,
        querystring: DeliveriesQuery,
      },
    },
    async (request) => {
      const { merchantId } = request.params;
      const { query } = request;
      const page = query.page ?? 0;
      const pageSize = query.pageSize ?? 20;
      await requireMerchant(deps.db, merchantId);
      const state = query.state === undefined ? undefined : STATES[query.state];
      const { deliveries, totalCount } = await listDeliveries(
        deps.db,
        merchantId,
        { webhookId: query.webhookId, state },
        { offset: page * pageSize, limit: pageSize },
      );
      return { data: deliveries.map(presentDelivery), totalCount };
    },
  );
}
