import { createApiKey } from "../db/merchants-repository.ts";
import { adminActor } from "../http/actor.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { changeAndRecord } from "../services/audit.ts";
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
      const actor = adminActor(request);
      return changeAndRecord(
        deps.db,
        (trx) => createApiKey(trx, merchantId, optionalName(name) ?? ""),
        ({ keyId }) => ({ merchantId, actor, action: "api-key.create", object: { type: "api-key", id: keyId } }),
      );
    },
  );
}
