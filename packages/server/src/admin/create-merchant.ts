import { createMerchant } from "../db/merchants-repository.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { requiredName } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { CreateMerchantBody } from "./schemas.ts";

export function registerCreateMerchant(app: TypedApp, deps: AdminDeps) {
  app.post("/merchants", { schema: { tags: ["Admin"], summary: "Create a merchant", body: CreateMerchantBody } }, async (request) => {
    const { name } = request.body;
    return createMerchant(deps.db, requiredName(name));
  });
}
