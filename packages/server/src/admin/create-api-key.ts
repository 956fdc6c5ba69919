import { createApiKey } from "../db/merchants-repository.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { optionalName, requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { CreateApiKeyBody, MerchantParams } from "./schemas.ts";

export function registerCreateApiKey(app: TypedApp, deps: AdminDeps) {
  app.post(
    "/merchants/:merchantId/apikeys",
    { schema: { tags: ["Admin"], summary: "Create an API key (shown once)", params: MerchantParams, body: CreateApiKeyBody } },
    async (request) => {
      const { merchantId } = request.params;
      const { name } = request.body ?? {};
      await requireMerchant(deps.db, merchantId);
      // No name (left out, empty or only spaces) is stored as the column's default, "".
      return createApiKey(deps.db, merchantId, optionalName(name) ?? "");
    },
  );
}
