// GET /admin/v1/merchants/{id}/apikeys: the merchant's API keys, newest first, never a key itself (its prefix only).
import { listApiKeys } from "../db/merchant-reads-repository.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { presentApiKey } from "./present-merchants.ts";
import { MerchantParams } from "./schemas.ts";

export function registerListApiKeys(app: TypedApp, deps: AdminDeps) {
  app.get(
    "/merchants/:merchantId/apikeys",
    { schema: { tags: ["Admin"], summary: "List a merchant's API keys (prefix only, never the key)", params: MerchantParams } },
    async (request) => {
      const { merchantId } = request.params;
      await requireMerchant(deps.db, merchantId);
      const items = await listApiKeys(deps.db, merchantId);
      return { data: items.map(presentApiKey) };
    },
  );
}
