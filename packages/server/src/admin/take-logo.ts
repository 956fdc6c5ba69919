// A theme's logo as given (docs/admin-api.md#themes): decoded from a data: URL or downloaded once
// from an https URL, checked, and returned for storing, so the checkout serves its own copy. The
// admin API and the portal's theme form both take logos through this.
import { AppError } from "../domain/errors.ts";
import { type LogoImage, parseDataUrlLogo } from "../domain/themes/logo.ts";
import { downloadLogo } from "./download-logo.ts";

export async function takeLogo(
  logoUrl: string | undefined,
  allowPrivate: boolean,
): Promise<{ logo: LogoImage | null; sourceUrl: string | null }> {
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
