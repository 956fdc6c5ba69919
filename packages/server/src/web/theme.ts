// A merchant's theme (display name, primary colour, logo URL) turned into values the page
// can use safely. Theme values are merchant-supplied, so nothing of them reaches CSS or HTML
// unchecked: the colour must be a hex colour, and the logo is only shown from where the shopper's
// browser may load it without a third-party request.
import type { CheckoutLink } from "../db/checkout-repository.ts";

export interface PageTheme {
  /** The header name: the theme's display name, or the merchant's name. */
  name: string;
  /** Primary colour, `#rrggbb`. */
  brand: string;
  /** Text colour on the primary colour, picked for contrast. */
  onBrand: string;
  /** Focus ring and link colour: the primary colour when it stands out on white, else near-black. */
  accent: string;
  logoSrc: string | null;
}

const DEFAULT_BRAND = "#1f4e8c";

export function pageTheme(link: Pick<CheckoutLink, "theme" | "merchantName">): PageTheme {
  const brand = normaliseHexColour(link.theme?.primaryColor) ?? DEFAULT_BRAND;
  const onWhite = contrastRatio(brand, "#ffffff");
  const onBlack = contrastRatio(brand, "#000000");
  return {
    name: link.theme?.name?.trim() || link.merchantName,
    brand,
    onBrand: onWhite >= 4.5 || onWhite >= onBlack ? "#ffffff" : "#111111",
    accent: onWhite >= 3 ? brand : "#1a1d21",
    logoSrc: link.theme?.logoVersion ? logoPath(link.theme.themeKey, link.theme.logoVersion) : null,
  };
}

export const DEFAULT_THEME: Omit<PageTheme, "name"> = {
  brand: DEFAULT_BRAND,
  onBrand: "#ffffff",
  accent: DEFAULT_BRAND,
  logoSrc: null,
};

export function normaliseHexColour(value: string | null | undefined): string | null {
  if (!value) return null;
  const text = value.trim().toLowerCase();
  if (/^#[0-9a-f]{6}$/.test(text)) return text;
  if (/^#[0-9a-f]{3}$/.test(text)) return `#${text[1]}${text[1]}${text[2]}${text[2]}${text[3]}${text[3]}`;
  return null;
}

/**
 * The logo is always Paylink's own stored copy, on Paylink's origin: loading it is no third-party
 * request. The version (a hash of the bytes) in the query lets browsers cache it for a year.
 */
export function logoPath(themeKey: string, version: string): string {
  return `/pay/assets/logos/${encodeURIComponent(themeKey)}?v=${encodeURIComponent(version)}`;
}

function channel(hex: string, index: number): number {
  const value = parseInt(hex.slice(1 + index * 2, 3 + index * 2), 16) / 255;
  return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
}

function luminance(hex: string): number {
  return 0.2126 * channel(hex, 0) + 0.7152 * channel(hex, 1) + 0.0722 * channel(hex, 2);
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}
