// POST /admin/v1/merchants/{id}/apikeys/{keyId}/revoke: a leaked key stops working at once.
import { forgetCachedApiKeys, revokeApiKey } from "../db/merchants-repository.ts";
import { AppError } from "../domain/errors.ts";
import { adminActor } from "../http/actor.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { changeAndRecord } from "../services/audit.ts";
import { requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { ApiKeyParams } from "./schemas.ts";

export function registerRevokeApiKey(app: TypedApp, deps: AdminDeps) {
  app.post(
    "/merchants/:merchantId/apikeys/:keyId/revoke",
    { schema: { tags: ["Admin"], summary: "Revoke an API key (requests with it get 401 from now on)", params: ApiKeyParams } },
    async (request) => {
      const { merchantId, keyId } = request.params;
      await requireMerchant(deps.db, merchantId);
      // Unknown, another merchant's, or already revoked: nothing to revoke.
      const actor = adminActor(request);
      const revoked = await changeAndRecord(
        deps.db,
        (trx) => revokeApiKey(trx, merchantId, keyId),
        (done) => (done ? { merchantId, actor, action: "api-key.revoke", object: { type: "api-key", id: keyId } } : undefined),
      );
      // After the commit: a look-up during the transaction may have cached the key as still valid.
      forgetCachedApiKeys(deps.db);
      if (!revoked) {
        throw new AppError("NotFound", `No active API key with keyId ${JSON.stringify(keyId)} for this merchant.`);
      }
      return { keyId, revoked: true };
    },
  );
}
