import type { FastifyInstance } from "fastify";
import { createApiKey } from "../db/merchants-repository.ts";
import { type AdminDeps, optionalName, requireMerchant } from "./index.ts";
import { CreateApiKeyBody, MerchantParams } from "./schemas.ts";

export function registerCreateApiKey(app: FastifyInstance, deps: AdminDeps) {
  app.post(
    "/merchants/:merchantId/apikeys",
    { schema: { tags: ["Admin"], summary: "Create an API key (shown once)", params: MerchantParams, body: CreateApiKeyBody } },
    async (request) => {
      const { merchantId } = request.params as { merchantId: string };
      const { name } = (request.body ?? {}) as { name?: string };
      await requireMerchant(deps.db, merchantId);
      // No name (left out, empty or only spaces) is stored as the column's default, "".
      return createApiKey(deps.db, merchantId, optionalName(name) ?? "");
    },
  );
}
