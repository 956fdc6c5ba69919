// POST /admin/v1/merchants/{id}/themes (docs/admin-api.md#themes). The logo is taken in now — decoded from a data:
// URL or downloaded once from an https URL — and stored, so the checkout serves its own copy.
import { createTheme } from "../db/merchants-repository.ts";
import { AppError } from "../domain/errors.ts";
import { type LogoImage, parseDataUrlLogo } from "../domain/themes/logo.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { requiredName, requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { downloadLogo } from "./download-logo.ts";
import { CreateThemeBody, MerchantParams } from "./schemas.ts";

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
      const theme = await createTheme(deps.db, merchantId, { name, primaryColor: body.primaryColor ?? null, logoUrl: sourceUrl, logo });
      return {
        themeKey: theme.themeKey,
        name: theme.name,
        primaryColor: theme.primaryColor,
        logoUrl: theme.logoUrl,
        hasLogo: theme.logoVersion !== null,
      };
    },
  );
}

async function takeLogo(logoUrl: string | undefined, allowPrivate: boolean): Promise<{ logo: LogoImage | null; sourceUrl: string | null }> {
  if (logoUrl === undefined || logoUrl.trim() === "") return { logo: null, sourceUrl: null };
  const uploaded = parseDataUrlLogo(logoUrl);
  if (uploaded) return { logo: uploaded, sourceUrl: null };
  let url: URL;
  try {
    url = new URL(logoUrl);
  } catch {
    throw new AppError("UnsupportedValue", `logoUrl ${JSON.stringify(logoUrl.slice(0, 120))} is not an absolute URL.`);
  }
  // Plain http only where private targets are allowed (development), as for webhook URLs.
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) {
    throw new AppError(
      "UnsupportedValue",
      `logoUrl ${JSON.stringify(logoUrl.slice(0, 120))} must be an absolute https:// URL or a data:image URL.`,
    );
  }
  if (url.username || url.password) throw new AppError("UnsupportedValue", "logoUrl must not carry a user name or password.");
  return { logo: await downloadLogo(url.toString(), { allowPrivate }), sourceUrl: url.toString() };
}
