// POST /admin/v1/merchants/{id}/themes/{themeKey} (docs/admin-api.md#themes): change a theme's name,
// colour or logo, by the rules of creating one (requiredName, the body schema, takeLogo).
import { findTheme, updateTheme } from "../db/merchants-repository.ts";
import { changedFields } from "../domain/audit/entry.ts";
import { AppError } from "../domain/errors.ts";
import type { LogoImage } from "../domain/themes/logo.ts";
import { adminActor } from "../http/actor.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { changeAndRecord } from "../services/audit.ts";
import { requiredName, requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { presentTheme } from "./present-merchants.ts";
import { ThemeParams, UpdateThemeBody } from "./schemas.ts";
import { takeLogo } from "./take-logo.ts";

const themeNotFound = (themeKey: string) => new AppError("NotFound", `No theme with key ${JSON.stringify(themeKey)} for this merchant.`);

export function registerUpdateTheme(app: TypedApp, deps: AdminDeps) {
  app.post(
    "/merchants/:merchantId/themes/:themeKey",
    {
      schema: {
        tags: ["Admin"],
        summary: "Change a checkout theme's name, primaryColor or logo",
        params: ThemeParams,
        body: UpdateThemeBody,
      },
    },
    async (request) => {
      const { merchantId, themeKey } = request.params;
      const { body } = request;
      const name = body.name === undefined ? undefined : requiredName(body.name);
      await requireMerchant(deps.db, merchantId);
      // Known before a logo is downloaded: another merchant's theme is not found, and fetches nothing.
      const current = await findTheme(deps.db, merchantId, themeKey);
      if (!current) throw themeNotFound(themeKey);
      let logo: { image: LogoImage; sourceUrl: string | null } | null | undefined;
      if (body.logoUrl !== undefined) {
        const taken = await takeLogo(body.logoUrl, deps.allowPrivateTargets);
        logo = taken.logo === null ? null : { image: taken.logo, sourceUrl: taken.sourceUrl };
      }
      if (name === undefined && body.primaryColor === undefined && logo === undefined) return presentTheme(current);
      const actor = adminActor(request);
      const theme = await changeAndRecord(
        deps.db,
        (trx) => updateTheme(trx, merchantId, themeKey, { name, primaryColor: body.primaryColor, logo }),
        (found) =>
          found && {
            merchantId,
            actor,
            action: "theme.update",
            object: { type: "theme", id: themeKey },
            details: { fields: changedFields({ name, primaryColor: body.primaryColor, logo }) },
          },
      );
      if (!theme) throw themeNotFound(themeKey);
      return presentTheme(theme);
    },
  );
}
