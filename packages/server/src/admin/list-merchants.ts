// GET /admin/v1/merchants: every merchant, newest first, a page at a time (the delivery log's paging).
import { listMerchants } from "../db/merchant-reads-repository.ts";
import type { TypedApp } from "../http/typed-app.ts";
import type { AdminDeps } from "./deps.ts";
import { presentMerchant } from "./present-merchants.ts";
import { MerchantsQuery } from "./schemas.ts";

export function registerListMerchants(app: TypedApp, deps: AdminDeps) {
  app.get(
    "/merchants",
    { schema: { tags: ["Admin"], summary: "List merchants, newest first", querystring: MerchantsQuery } },
    async (request) => {
      const page = request.query.page ?? 0;
      const pageSize = request.query.pageSize ?? 20;
      const { merchants, totalCount } = await listMerchants(deps.db, { offset: page * pageSize, limit: pageSize });
      return { data: merchants.map(presentMerchant), totalCount };
    },
  );
}
