// POST /admin/v1/merchants/{id}/themes (docs/admin-api.md#themes). The logo is taken in now — decoded from a data:
// URL or downloaded once from an https URL — and stored, so the checkout serves its own copy.
import { createTheme } from "../db/merchants-repository.ts";
import { adminActor } from "../http/actor.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { changeAndRecord } from "../services/audit.ts";
import { requiredName, requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { presentTheme } from "./present-merchants.ts";
import { CreateThemeBody, MerchantParams } from "./schemas.ts";
import { takeLogo } from "./take-logo.ts";

export function registerCreateTheme(app: TypedApp, deps: AdminDeps) {
  app.post(
    "/merchants/:merchantId/themes",
    { schema: { tags: ["Admin"], summary: "Create a checkout theme", params: MerchantParams, body: CreateThemeBody } },
    async (request) => {
      const { merchantId } = request.params;
      const body = request.body;
      const name = requiredName(body.name);
      await requireMerchant(deps.db, merchantId);
      const { logo, sourceUrl } = await takeLogo(body.logoUrl, deps.allowPrivateTargets);
      const actor = adminActor(request);
      const theme = await changeAndRecord(
        deps.db,
        (trx) => createTheme(trx, merchantId, { name, primaryColor: body.primaryColor ?? null, logoUrl: sourceUrl, logo }),
        (created) => ({ merchantId, actor, action: "theme.create", object: { type: "theme", id: created.themeKey }, details: { name } }),
      );
      return presentTheme(theme);
    },
  );
}
