// Theme logos (docs/checkout.md#themes: the checkout shows the theme's logo). The page may make no third-party
// request, so Paylink keeps a copy of each logo and serves it from its own origin. This module is
// the pure part: which bytes are an acceptable logo, and what a data: URL holds.
import { AppError } from "../errors.ts";

/** Large enough for a crisp header logo, small enough to keep the checkout fast on a phone. */
export const MAX_LOGO_BYTES = 64 * 1024;

export type LogoContentType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export interface LogoImage {
  contentType: LogoContentType;
  bytes: Buffer;
}

/**
 * The image type from the file's own first bytes; the sender's Content-Type is not trusted.
 * Raster formats only: an SVG served from Paylink's origin could carry script when opened directly.
 */
export function sniffLogoType(bytes: Buffer): LogoContentType | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(bytes.subarray(0, 6).toString("latin1"))) return "image/gif";
  if (bytes.length >= 12 && bytes.subarray(0, 4).toString("latin1") === "RIFF" && bytes.subarray(8, 12).toString("latin1") === "WEBP")
    return "image/webp";
  return undefined;
}

/** Checks downloaded or decoded bytes: a PNG, JPEG, GIF or WebP image of at most 64 KB (2008 otherwise). */
export function checkLogoBytes(bytes: Buffer, source: string): LogoImage {
  if (bytes.length === 0) throw new AppError("UnsupportedValue", `logoUrl ${source} is empty.`);
  if (bytes.length > MAX_LOGO_BYTES) {
    throw new AppError("TooLong", `logoUrl ${source} is too large: at most ${MAX_LOGO_BYTES / 1024} KB.`);
  }
  const contentType = sniffLogoType(bytes);
  if (!contentType) throw new AppError("UnsupportedValue", `logoUrl ${source} is not a PNG, JPEG, GIF or WebP image.`);
  return { contentType, bytes };
}

const DATA_URL = /^data:image\/(png|jpeg|gif|webp);base64,([A-Za-z0-9+/]*={0,2})$/;

/** `data:image/png;base64,…` → the image; undefined when the text is not a data: URL at all. */
export function parseDataUrlLogo(text: string): LogoImage | undefined {
  if (!text.startsWith("data:")) return undefined;
  const match = DATA_URL.exec(text);
  if (!match) throw new AppError("UnsupportedValue", "logoUrl must be a data:image/(png|jpeg|gif|webp);base64,… URL or an https:// URL.");
  return checkLogoBytes(Buffer.from(match[2]!, "base64"), "(data: URL)");
}
