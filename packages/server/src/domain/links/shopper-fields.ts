// What a valid answer to each shopper field looks like. Used for a merchant's prefilled values
// (create/update) and for the shopper's answers on the checkout page, so both agree.
import type { ShopperField } from "./types.ts";

export const SHOPPER_FIELD_MAX_LENGTH: Record<ShopperField, number> = {
  Ssn: 11,
  FullName: 200,
  Address: 200,
  PostCode: 20,
  City: 100,
  Country: 100,
  Telephone: 20,
  EmailAddress: 254,
  Comments: 1000,
};

export type ShopperValueProblem = "empty" | "too_long" | "invalid_email" | "invalid_ssn" | "invalid_telephone";

/** Returns why a value is not acceptable for the field, or null when it is. */
export function checkShopperValue(field: ShopperField, raw: string): ShopperValueProblem | null {
  const value = raw.trim();
  if (value === "") return "empty";
  if (value.length > SHOPPER_FIELD_MAX_LENGTH[field]) return "too_long";
  switch (field) {
    case "EmailAddress":
      // Deliberately simple: one @, something on each side, a dot in the domain, no spaces.
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) ? null : "invalid_email";
    case "Ssn":
      // An Icelandic kennitala: 10 digits, often written with a hyphen after the sixth.
      return /^\d{6}-?\d{4}$/.test(value) ? null : "invalid_ssn";
    case "Telephone":
      return /^\+?\d{7,15}$/.test(value.replace(/[\s-]/g, "")) ? null : "invalid_telephone";
    default:
      return null;
  }
}
