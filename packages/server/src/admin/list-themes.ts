// GET /admin/v1/merchants/{id}/themes: the merchant's checkout themes, oldest first.
import { listThemes } from "../db/merchant-reads-repository.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { presentTheme } from "./present-merchants.ts";
import { MerchantParams } from "./schemas.ts";

export function registerListThemes(app: TypedApp, deps: AdminDeps) {
  app.get(
    "/merchants/:merchantId/themes",
    { schema: { tags: ["Admin"], summary: "List a merchant's checkout themes", params: MerchantParams } },
    async (request) => {
      const { merchantId } = request.params;
      await requireMerchant(deps.db, merchantId);
      const items = await listThemes(deps.db, merchantId);
      return { data: items.map(presentTheme) };
    },
  );
}
