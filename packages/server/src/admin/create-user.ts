import { createPortalUser } from "../db/merchants-repository.ts";
import { isUniqueViolation } from "../db/unique-violation.ts";
import { AppError } from "../domain/errors.ts";
import { checkShopperValue } from "../domain/links/shopper-fields.ts";
import { adminActor } from "../http/actor.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { hashPassword } from "../security/passwords.ts";
import { changeAndRecord } from "../services/audit.ts";
import { requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { CreateUserBody, MerchantParams } from "./schemas.ts";

// Without a role the user is an owner, as every user was before roles (docs/admin-api.md#users).

export function registerCreateUser(app: TypedApp, deps: AdminDeps) {
  app.post(
    "/merchants/:merchantId/users",
    { schema: { tags: ["Admin"], summary: "Create a portal user", params: MerchantParams, body: CreateUserBody } },
    async (request) => {
      const { merchantId } = request.params;
      const { email, password, role = "owner" } = request.body;
      if (checkShopperValue("EmailAddress", email) !== null)
        throw new AppError("UnsupportedValue", `email ${JSON.stringify(email)} is not an e-mail address.`);
      await requireMerchant(deps.db, merchantId);
      try {
        const passwordHash = await hashPassword(password);
        const actor = adminActor(request);
        return await changeAndRecord(
          deps.db,
          (trx) => createPortalUser(trx, merchantId, email.trim(), passwordHash, role),
          ({ userId }) => ({
            merchantId,
            actor,
            action: "user.create",
            object: { type: "user", id: userId },
            details: { email: email.trim(), role },
          }),
        );
      } catch (error) {
        if (isUniqueViolation(error))
          throw new AppError("StateConflict", `A portal user with e-mail ${JSON.stringify(email)} already exists.`);
        throw error;
      }
    },
  );
}
