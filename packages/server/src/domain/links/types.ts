// The payment-link vocabulary of docs/api.md, as plain values.

export const LINK_TYPES = ["PayByLink", "TokenizeByLink"] as const;
export type LinkType = (typeof LINK_TYPES)[number];

export const LINK_STATUSES = ["Active", "Expired", "Used", "Disabled", "Completed"] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

export const RECURRING_PROCESSING_MODELS = ["CardOnFile", "Subscription", "UnscheduledCardOnFile"] as const;
export type RecurringProcessingModel = (typeof RECURRING_PROCESSING_MODELS)[number];

export const CULTURES = ["is", "en"] as const;
export type Culture = (typeof CULTURES)[number];

export const SHOPPER_FIELDS = [
  "Ssn",
  "FullName",
  "Address",
  "PostCode",
  "City",
  "Country",
  "Telephone",
  "EmailAddress",
  "Comments",
] as const;
export type ShopperField = (typeof SHOPPER_FIELDS)[number];

export const REQUIREMENT_TYPES = ["Required", "Optional", "Hidden", "Prefilled"] as const;
export type RequirementType = (typeof REQUIREMENT_TYPES)[number];

export interface Item {
  name: string;
  quantity: number;
  unitPrice: number;
  amountWithoutDiscount: number;
  amount: number;
}

export interface ShopperInfo {
  field: ShopperField;
  requirementType: RequirementType;
  prefilledValue: string | null;
}

/** A shopper field as a request sends it: prefilledValue may be left out. */
export interface ShopperInfoInput {
  field: ShopperField;
  requirementType: RequirementType;
  prefilledValue?: string | null;
}

/** Everything a merchant decides about a link; the server adds reference, counters and times. */
export interface LinkTerms {
  type: LinkType;
  terminalIdentifier: string;
  amount: number;
  currency: string;
  items: Item[];
  recurringProcessingModel: RecurringProcessingModel | null;
  culture: Culture;
  themeKey: string | null;
  validUntil: Date | null;
  description: string;
  returnUrl: string | null;
  maxSalesCount: number | null;
  shopperInfo: ShopperInfo[];
}

/** What the status derivation needs to know about a stored link. */
export interface LinkState {
  type: LinkType;
  disabled: boolean;
  salesCount: number;
  maxSalesCount: number | null;
  validUntil: Date | null;
}

/** Largest amount accepted, in minor units (docs/api.md#create, error 2019). */
export const MAX_AMOUNT = 100_000_000_000;
export const MAX_ITEMS = 200;
export const MAX_DESCRIPTION_LENGTH = 500;
