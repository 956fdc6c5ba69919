import { AppError } from "../errors.ts";
import { checkAmountAndItems, checkCurrency, checkReturnUrl, checkShopperInfo, parseFutureExpiry, pickAlias } from "./terms.ts";
import type { Culture, Item, LinkTerms, LinkType, RecurringProcessingModel, ShopperInfoInput } from "./types.ts";

/** A create request after the schema check (shapes and enumerations are already right). */
export interface CreateLinkRequest {
  type: LinkType;
  terminalIdentifier: string;
  amount: number;
  currency: string;
  items?: Item[];
  recurringProcessingModel?: RecurringProcessingModel | null;
  culture?: Culture | null;
  themeKey?: string | null;
  expiresAt?: string | null;
  validUntil?: string | null;
  description?: string | null;
  returnUrl?: string | null;
  exactSalesCount?: number | null;
  maxSalesCount?: number | null;
  shopperInfo?: ShopperInfoInput[] | null;
  shopperInfos?: ShopperInfoInput[] | null;
}

/** Turns a create request into the link's terms, or throws the first rule it breaks. */
export function termsFromCreateRequest(request: CreateLinkRequest, now: Date): LinkTerms {
  const currency = checkCurrency(request.currency);

  if (request.type === "PayByLink" && request.items === undefined) {
    throw new AppError("RequiredFieldMissing", "items is required for a PayByLink link (send an empty list for a link without a cart).").at(
      "items",
    );
  }
  const items = request.items ?? [];
  checkAmountAndItems(request.type, request.amount, currency, items);

  const expiry = pickAlias("expiresAt", request.expiresAt ?? undefined, "validUntil", request.validUntil ?? undefined);
  const validUntil = expiry === undefined ? null : parseFutureExpiry(request.expiresAt != null ? "expiresAt" : "validUntil", expiry, now);

  const shopperInfo = pickAlias("shopperInfo", request.shopperInfo ?? undefined, "shopperInfos", request.shopperInfos ?? undefined);

  let maxSalesCount =
    pickAlias("exactSalesCount", request.exactSalesCount ?? undefined, "maxSalesCount", request.maxSalesCount ?? undefined) ?? null;
  if (request.type === "TokenizeByLink") {
    if (maxSalesCount !== null && maxSalesCount !== 1) {
      throw new AppError(
        "ConflictingFields",
        `a TokenizeByLink link is single-use: exactSalesCount can only be 1, got ${maxSalesCount}.`,
      ).at("exactSalesCount");
    }
    maxSalesCount = 1;
  }

  return {
    type: request.type,
    terminalIdentifier: request.terminalIdentifier,
    amount: request.amount,
    currency,
    items,
    recurringProcessingModel: request.recurringProcessingModel ?? (request.type === "TokenizeByLink" ? "CardOnFile" : null),
    culture: request.culture ?? "is",
    themeKey: request.themeKey ?? null,
    validUntil,
    description: request.description ?? "",
    returnUrl: request.returnUrl == null ? null : checkReturnUrl(request.returnUrl),
    maxSalesCount,
    shopperInfo: checkShopperInfo(shopperInfo ?? [], request.shopperInfo != null ? "shopperInfo" : "shopperInfos"),
  };
}
