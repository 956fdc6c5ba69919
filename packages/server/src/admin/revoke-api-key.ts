// POST /admin/v1/merchants/{id}/apikeys/{keyId}/revoke: a leaked key stops working at once.
import { revokeApiKey } from "../db/merchants-repository.ts";
import { AppError } from "../domain/errors.ts";
import type { TypedApp } from "../http/typed-app.ts";
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
      if (!(await revokeApiKey(deps.db, merchantId, keyId))) {
        throw new AppError("NotFound", `No active API key with keyId ${JSON.stringify(keyId)} for this merchant.`);
      }
      return { keyId, revoked: true };
    },
  );
}
