// The names of the shopper fields a link may ask for, in both languages: the checkout labels its
// inputs with them, the portal its link form and a payment's answers, so both say the same.
import type { ShopperField } from "../domain/links/types.ts";
import type { Lang } from "./i18n.ts";

export const SHOPPER_FIELD_LABELS: Record<Lang, Record<ShopperField, string>> = {
  en: {
    Ssn: "Kennitala (Icelandic ID number)",
    FullName: "Full name",
    Address: "Address",
    PostCode: "Postcode",
    City: "Town or city",
    Country: "Country",
    Telephone: "Phone number",
    EmailAddress: "Email address",
    Comments: "Comments",
  },
  is: {
    Ssn: "Kennitala",
    FullName: "Fullt nafn",
    Address: "Heimilisfang",
    PostCode: "Póstnúmer",
    City: "Staður",
    Country: "Land",
    Telephone: "Símanúmer",
    EmailAddress: "Netfang",
    Comments: "Athugasemdir",
  },
};

/** A stored answer's field as a label; a name this version does not know shows as it is. */
export function shopperFieldLabel(lang: Lang, field: string): string {
  return Object.hasOwn(SHOPPER_FIELD_LABELS[lang], field) ? SHOPPER_FIELD_LABELS[lang][field as ShopperField] : field;
}
