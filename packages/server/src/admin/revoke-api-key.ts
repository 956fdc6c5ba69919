// POST /admin/v1/merchants/{id}/apikeys/{keyId}/revoke: a leaked key stops working at once.
import type { FastifyInstance } from "fastify";
import Type from "typebox";
import { revokeApiKey } from "../db/merchants-repository.ts";
import { AppError } from "../domain/errors.ts";
import { type AdminDeps, requireMerchant } from "./index.ts";

const ApiKeyParams = Type.Object({
  merchantId: Type.String({ minLength: 1, maxLength: 64 }),
  keyId: Type.String({ minLength: 1, maxLength: 64 }),
});

export function registerRevokeApiKey(app: FastifyInstance, deps: AdminDeps) {
  app.post(
    "/merchants/:merchantId/apikeys/:keyId/revoke",
    { schema: { tags: ["Admin"], summary: "Revoke an API key (requests with it get 401 from now on)", params: ApiKeyParams } },
    async (request) => {
      const { merchantId, keyId } = request.params as { merchantId: string; keyId: string };
      await requireMerchant(deps.db, merchantId);
      // Unknown, another merchant's, or already revoked: nothing to revoke.
      if (!(await revokeApiKey(deps.db, merchantId, keyId))) {
        throw new AppError("NotFound", `No active API key with keyId ${JSON.stringify(keyId)} for this merchant.`);
      }
      return { keyId, revoked: true };
    },
  );
}
