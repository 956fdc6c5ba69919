import type { FastifyInstance } from "fastify";
import { createApiKey } from "../db/merchants-repository.ts";
import { requireMerchant, type AdminDeps } from "./index.ts";
import { CreateApiKeyBody, MerchantParams } from "./schemas.ts";

export function registerCreateApiKey(app: FastifyInstance, deps: AdminDeps) {
  app.post(
    "/merchants/:merchantId/apikeys",
    { schema: { tags: ["Admin"], summary: "Create an API key (shown once)", params: MerchantParams, body: CreateApiKeyBody } },
    async (request) => {
      const { merchantId } = request.params as { merchantId: string };
      const { name } = (request.body ?? {}) as { name?: string };
      await requireMerchant(deps.db, merchantId);
      return createApiKey(deps.db, merchantId, name?.trim() ?? "");
    },
  );
}
