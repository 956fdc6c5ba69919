// GET /admin/v1/merchants/{id}/users: the merchant's portal users, oldest first, never a password hash.
import { listPortalUsers } from "../db/merchant-reads-repository.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { presentUser } from "./present-merchants.ts";
import { MerchantParams } from "./schemas.ts";

export function registerListUsers(app: TypedApp, deps: AdminDeps) {
  app.get(
    "/merchants/:merchantId/users",
    { schema: { tags: ["Admin"], summary: "List a merchant's portal users", params: MerchantParams } },
    async (request) => {
      const { merchantId } = request.params;
      await requireMerchant(deps.db, merchantId);
      const items = await listPortalUsers(deps.db, merchantId);
      return { data: items.map(presentUser) };
    },
  );
}
