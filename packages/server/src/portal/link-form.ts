// The create and edit forms of a payment link, read into the API's own request body (so the API's
// schema and rules judge it, docs/portal.md#links), and an API error placed beside the field it
// names. Amounts are typed as people read them ("4890" kr., "12.50" €) and converted here.

import type { PaymentLinkRecord } from "../db/links-repository.ts";
import { SHOPPER_FIELDS, type ShopperField } from "../domain/links/types.ts";
import { isKnownCurrency } from "../domain/money/currencies.ts";
import { formatDisplayAmount, parseDisplayAmount } from "../domain/money/display-amount.ts";
import type { Lang } from "../web/i18n.ts";

/** The form as posted (or as it is shown again): every value as text. */
export interface LinkFormValues {
  type: string;
  terminalIdentifier: string;
  currency: string;
  amount: string;
  items: Array<{ name: string; quantity: string; unitPrice: string; amount: string }>;
  description: string;
  culture: string;
  themeKey: string;
  expiresAt: string;
  returnUrl: string;
  exactSalesCount: string;
  recurringProcessingModel: string;
  shopper: Partial<Record<ShopperField, { requirement: string; value: string }>>;
}

export type FormProblem = "notAmount" | "notWholeNumber";

/** Problems keyed by field ("amount", "item-0-unitPrice", "shopper-FullName"…). */
export type FieldProblems = Map<string, FormProblem | { message: string }>;

type Fields = Record<string, unknown>;

function all(body: Fields, name: string): string[] {
  const raw = body[name];
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return list.map((value) => (typeof value === "string" ? value : ""));
}
const one = (body: Fields, name: string) => all(body, name)[0]?.trim() ?? "";

export function readLinkForm(body: Fields): LinkFormValues {
  const names = all(body, "itemName");
  const quantities = all(body, "itemQuantity");
  const prices = all(body, "itemUnitPrice");
  const amounts = all(body, "itemAmount");
  const items = names.map((name, i) => ({
    name: name.trim(),
    quantity: (quantities[i] ?? "").trim(),
    unitPrice: (prices[i] ?? "").trim(),
    amount: (amounts[i] ?? "").trim(),
  }));
  const shopper: LinkFormValues["shopper"] = {};
  for (const field of SHOPPER_FIELDS) {
    const requirement = one(body, `shopper-${field}`);
    if (requirement !== "") shopper[field] = { requirement, value: one(body, `prefill-${field}`) };
  }
  return {
    type: one(body, "type") || "PayByLink",
    terminalIdentifier: one(body, "terminalIdentifier"),
    currency: one(body, "currency").toUpperCase(),
    amount: one(body, "amount"),
    // Rows left blank (the spare rows of a form without JavaScript) are not items.
    items: items.filter((item) => item.name !== "" || item.quantity !== "" || item.unitPrice !== "" || item.amount !== ""),
    description: one(body, "description"),
    culture: one(body, "culture") || "is",
    themeKey: one(body, "themeKey"),
    expiresAt: one(body, "expiresAt"),
    returnUrl: one(body, "returnUrl"),
    exactSalesCount: one(body, "exactSalesCount"),
    recurringProcessingModel: one(body, "recurringProcessingModel"),
    shopper,
  };
}

/**
 * The API request body of the form (create: every field; edit: the same minus type and terminal),
 * or the fields that could not be read. The link amount is the sum of the items when there are any.
 */
export function linkRequestOf(values: LinkFormValues, lang: Lang): { body: Record<string, unknown>; problems: FieldProblems } {
  const problems: FieldProblems = new Map();
  const currency = isKnownCurrency(values.currency) ? values.currency : "EUR";
  const money = (text: string, key: string): number => {
    const parsed = parseDisplayAmount(text, currency, lang);
    if (parsed === null) problems.set(key, "notAmount");
    return parsed ?? 0;
  };
  const whole = (text: string, key: string): number => {
    if (!/^\d{1,9}$/.test(text)) problems.set(key, "notWholeNumber");
    return Number(text) || 0;
  };
  const tokenize = values.type === "TokenizeByLink";
  const items = tokenize
    ? []
    : values.items.map((item, i) => {
        const quantity = whole(item.quantity || "1", `item-${i}-quantity`);
        const unitPrice = money(item.unitPrice, `item-${i}-unitPrice`);
        const full = quantity * unitPrice;
        const amount = item.amount === "" ? full : money(item.amount, `item-${i}-amount`);
        return { name: item.name, quantity, unitPrice, amountWithoutDiscount: full, amount };
      });
  const amount = tokenize ? 0 : items.length > 0 ? items.reduce((sum, item) => sum + item.amount, 0) : money(values.amount, "amount");
  const body: Record<string, unknown> = {
    type: values.type,
    terminalIdentifier: values.terminalIdentifier,
    amount,
    currency: values.currency,
    items,
    culture: values.culture,
    themeKey: values.themeKey === "" ? null : values.themeKey,
    description: values.description,
    returnUrl: values.returnUrl === "" ? null : values.returnUrl,
    expiresAt: values.expiresAt === "" ? null : expiryInstant(values.expiresAt),
    exactSalesCount: values.exactSalesCount === "" ? null : whole(values.exactSalesCount, "exactSalesCount"),
    shopperInfo: Object.entries(values.shopper).map(([field, entry]) => ({
      field,
      requirementType: entry.requirement,
      ...(entry.requirement === "Prefilled" ? { prefilledValue: entry.value } : {}),
    })),
  };
  if (tokenize) body.recurringProcessingModel = values.recurringProcessingModel || "CardOnFile";
  return { body, problems };
}

/**
 * The items' total as the form would save it (the link amount, in wire units), for the running total
 * beside the items; null without items or while an item's numbers cannot be read.
 */
export function itemsTotal(values: LinkFormValues, lang: Lang): number | null {
  if (values.type === "TokenizeByLink" || values.items.length === 0 || !isKnownCurrency(values.currency)) return null;
  const { body, problems } = linkRequestOf(values, lang);
  return [...problems.keys()].some((key) => key.startsWith("item-")) ? null : Number(body.amount);
}

/** A datetime-local value ("2030-01-31T12:00") is a time in Iceland, which is UTC all year. */
function expiryInstant(text: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(text) ? `${text}:00Z` : text;
}

/** The edit form's starting values: the link as it is. */
export function formValuesOf(link: PaymentLinkRecord): LinkFormValues {
  const { terms } = link;
  const shopper: LinkFormValues["shopper"] = {};
  for (const entry of terms.shopperInfo) shopper[entry.field] = { requirement: entry.requirementType, value: entry.prefilledValue ?? "" };
  return {
    type: terms.type,
    terminalIdentifier: terms.terminalIdentifier,
    currency: terms.currency,
    amount: formatDisplayAmount(terms.amount, terms.currency),
    items: terms.items.map((item) => ({
      name: item.name,
      quantity: String(item.quantity),
      unitPrice: formatDisplayAmount(item.unitPrice, terms.currency),
      amount: formatDisplayAmount(item.amount, terms.currency),
    })),
    description: terms.description,
    culture: terms.culture,
    themeKey: terms.themeKey ?? "",
    expiresAt: terms.validUntil ? terms.validUntil.toISOString().slice(0, 16) : "",
    returnUrl: terms.returnUrl ?? "",
    exactSalesCount: terms.maxSalesCount === null ? "" : String(terms.maxSalesCount),
    recurringProcessingModel: terms.recurringProcessingModel ?? "",
    shopper,
  };
}

/** The form's name for an API field the form shows under another name. */
const FIELD_ALIASES: Record<string, string> = { validUntil: "expiresAt", maxSalesCount: "exactSalesCount", shopperInfos: "shopperInfo" };

/** API fields the form has a place for; an error about any other is shown above the form. */
const FORM_FIELDS = new Set([
  "amount",
  "currency",
  "items",
  "expiresAt",
  "returnUrl",
  "description",
  "exactSalesCount",
  "terminalIdentifier",
  "themeKey",
  "culture",
  "recurringProcessingModel",
  "type",
  "shopperInfo",
]);

/** Where the form shows an error about an API field ("items[1].amount" → "item-1-amount"), or "form". */
export function formFieldOf(field: string | undefined): string {
  if (field === undefined) return "form";
  const item = /^items\[(\d+)\](?:\.(\w+))?/.exec(field);
  if (item) return item[2] ? `item-${item[1]}-${item[2]}` : `item-${item[1]}-name`;
  const shopper = /^shopperInfos?\[(\d+)\]/.exec(field);
  if (shopper) return `shopper-${shopper[1]}`;
  const name = /^\w+/.exec(field)?.[0] ?? "";
  const formName = FIELD_ALIASES[name] ?? name;
  return FORM_FIELDS.has(formName) ? formName : "form";
}
