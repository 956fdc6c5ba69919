// /admin/v1 (SPEC §5): how an operator provisions merchants. Enabled only with PAYLINK_ADMIN_TOKEN.
import type { FastifyInstance } from "fastify";
import type { Database } from "../db/connect.ts";
import { merchantExists } from "../db/merchants-repository.ts";
import { AppError } from "../domain/errors.ts";
import { requireJsonContentType } from "../http/content-type.ts";
import { registerWebhookAdmin } from "../webhooks/admin-routes.ts";
import { adminTokenAuth } from "./auth.ts";
import { registerCreateApiKey } from "./create-api-key.ts";
import { registerCreateMerchant } from "./create-merchant.ts";
import { registerCreateTerminal } from "./create-terminal.ts";
import { registerCreateTheme } from "./create-theme.ts";
import { registerCreateUser } from "./create-user.ts";
import { registerRevokeApiKey } from "./revoke-api-key.ts";

export interface AdminDeps {
  db: Database;
  adminToken: string;
  /** PAYLINK_WEBHOOK_ALLOW_PRIVATE: logo downloads may reach private addresses and plain http://. */
  allowPrivateTargets: boolean;
}

export async function adminRoutes(app: FastifyInstance, deps: AdminDeps) {
  app.addHook("onRequest", adminTokenAuth(deps.adminToken));
  app.addHook("onRequest", requireJsonContentType);
  registerCreateMerchant(app, deps);
  registerCreateTerminal(app, deps);
  registerCreateApiKey(app, deps);
  registerRevokeApiKey(app, deps);
  registerCreateUser(app, deps);
  registerCreateTheme(app, deps);
  registerWebhookAdmin(app, deps);
}

/** 404 (2014) for a merchant id that does not exist. */
export async function requireMerchant(db: Database, merchantId: string): Promise<void> {
  if (!(await merchantExists(db, merchantId))) throw new AppError("NotFound", `No merchant with id ${JSON.stringify(merchantId)}.`);
}

/**
 * A required name without its surrounding white space; 000 when nothing is left, as for an empty
 * string (the schema's minLength sees "   " as three characters).
 */
export function requiredName(value: string, field = "name"): string {
  const trimmed = value.trim();
  if (trimmed === "") throw new AppError("RequiredFieldMissing", `${field} cannot be empty or only spaces.`);
  return trimmed;
}

/** An optional name without its surrounding white space; undefined (left out) when nothing is left. */
export function optionalName(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === "" ? undefined : trimmed;
}

export const adminTags = ["Admin"];
