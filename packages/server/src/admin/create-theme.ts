import type { FastifyInstance } from "fastify";
import { createTheme } from "../db/merchants-repository.ts";
import { AppError } from "../domain/errors.ts";
import { requiredName, requireMerchant, type AdminDeps } from "./index.ts";
import { CreateThemeBody, MerchantParams } from "./schemas.ts";

export function registerCreateTheme(app: FastifyInstance, deps: AdminDeps) {
  app.post(
    "/merchants/:merchantId/themes",
    { schema: { tags: ["Admin"], summary: "Create a checkout theme", params: MerchantParams, body: CreateThemeBody } },
    async (request) => {
      const { merchantId } = request.params as { merchantId: string };
      const body = request.body as { name: string; primaryColor?: string; logoUrl?: string };
      const name = requiredName(body.name);
      if (body.logoUrl !== undefined && !isHttpsUrl(body.logoUrl)) {
        throw new AppError("2008", `logoUrl ${JSON.stringify(body.logoUrl)} must be an absolute https:// URL.`);
      }
      await requireMerchant(deps.db, merchantId);
      const theme = await createTheme(deps.db, merchantId, { name, primaryColor: body.primaryColor ?? null, logoUrl: body.logoUrl ?? null });
      return { themeKey: theme.themeKey, name: theme.name, primaryColor: theme.primaryColor, logoUrl: theme.logoUrl };
    },
  );
}

function isHttpsUrl(text: string): boolean {
  try {
    return new URL(text).protocol === "https:";
  } catch {
    return false;
  }
}
