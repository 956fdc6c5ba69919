// docs/api.md#update: clients send back the whole object they read (GET → change → POST). Fields that
// are sent unchanged are always accepted, so a round trip of any link succeeds; the rules only
// bite on what actually changes.
import { AppError } from "../errors.ts";
import { linkStatus } from "./status.ts";
import {
  checkAmountAndItems,
  checkCurrency,
  checkReturnUrl,
  checkShopperInfo,
  describe,
  parseFutureExpiry,
  parseIsoDateTime,
  pickAlias,
} from "./terms.ts";
import type { Culture, Item, LinkStatus, LinkTerms, LinkType, RecurringProcessingModel, ShopperInfoInput } from "./types.ts";

export interface UpdateLinkRequest {
  paymentLinkReference: string;
  terminalIdentifier?: string;
  type?: LinkType;
  themeKey?: string | null;
  description?: string | null;
  amount?: number;
  currency?: string;
  returnUrl?: string | null;
  status?: LinkStatus;
  culture?: Culture;
  validUntil?: string | null;
  expiresAt?: string | null;
  recurringProcessingModel?: RecurringProcessingModel | null;
  maxSalesCount?: number | null;
  exactSalesCount?: number | null;
  items?: Item[];
  shopperInfo?: ShopperInfoInput[];
  shopperInfos?: ShopperInfoInput[];
  // Server-managed fields (url, createdAt, visitCount, salesCount, submissions) are accepted and ignored.
}

export interface StoredLink {
  terms: LinkTerms;
  disabled: boolean;
  salesCount: number;
  /** Payments in flight: sale slots reserved while the processor answers. */
  reservedCount?: number;
}

export interface LinkChange {
  terms: LinkTerms;
  disabled: boolean;
}

export function applyUpdate(current: StoredLink, request: UpdateLinkRequest, now: Date): LinkChange {
  const terms = current.terms;
  const currentStatus = linkStatus(current, now);
  // The link's contents decide, not its displayed status: a completed link that was also disabled
  // reads "Disabled", and re-enabling it must not reopen it to changes.
  if (terms.type === "TokenizeByLink" && current.salesCount >= 1) {
    throw new AppError("StateConflict", "this TokenizeByLink link is Completed (the card was saved) and can no longer be changed.");
  }

  for (const field of ["type", "terminalIdentifier"] as const) {
    const sent = request[field];
    if (sent !== undefined && sent !== terms[field]) {
      throw new AppError(
        "ConflictingFields",
        `${field} cannot change after a link is created (it is ${describe(terms[field])}, got ${describe(sent)}).`,
      ).at(field);
    }
  }

  // Price: amount, currency and cart are frozen once anything has been sold.
  const currency = request.currency === undefined ? terms.currency : checkCurrency(request.currency);
  const amount = request.amount ?? terms.amount;
  const items = request.items ?? terms.items;
  const priceChanged = currency !== terms.currency || amount !== terms.amount || !sameItems(items, terms.items);
  if (priceChanged) {
    if (current.salesCount > 0) {
      throw new AppError(
        "StateConflict",
        `amount, currency and items cannot change after a sale (this link has ${current.salesCount}).`,
      ).at("amount");
    }
    // A shopper is paying the current price right now; a change would make the sale disagree with it.
    if ((current.reservedCount ?? 0) > 0) {
      throw new AppError(
        "StateConflict",
        "amount, currency and items cannot change while a payment is in progress on this link; try again in a minute.",
      ).at("amount");
    }
    checkAmountAndItems(terms.type, amount, currency, items);
  }

  let disabled = current.disabled;
  if (request.status !== undefined && request.status !== currentStatus) {
    if (request.status === "Disabled") disabled = true;
    else if (request.status === "Active") disabled = false;
    else
      throw new AppError("UnknownValue", `status can only be set to "Active" or "Disabled", got ${describe(request.status)}.`).at("status");
  }

  const expiryText = pickAlias("validUntil", request.validUntil, "expiresAt", request.expiresAt);
  let validUntil = terms.validUntil;
  if (expiryText === null) validUntil = null;
  else if (expiryText !== undefined) {
    const field = request.validUntil !== undefined ? "validUntil" : "expiresAt";
    const parsed = parseIsoDateTime(field, expiryText);
    if (parsed.getTime() !== terms.validUntil?.getTime()) validUntil = parseFutureExpiry(field, expiryText, now);
  }

  const shopperInfo = pickAlias("shopperInfo", request.shopperInfo, "shopperInfos", request.shopperInfos);

  let maxSalesCount = terms.maxSalesCount;
  const maxText = pickAlias("maxSalesCount", request.maxSalesCount, "exactSalesCount", request.exactSalesCount);
  if (maxText !== undefined && maxText !== terms.maxSalesCount) {
    if (terms.type === "TokenizeByLink") {
      throw new AppError("ConflictingFields", "a TokenizeByLink link is single-use: maxSalesCount is always 1.").at("maxSalesCount");
    }
    const floor = Math.max(1, current.salesCount);
    if (maxText !== null && maxText < floor) {
      throw new AppError(
        "MustBeGreater",
        `maxSalesCount must be at least ${floor} (the link already has ${current.salesCount} sales), got ${maxText}.`,
      ).at("maxSalesCount");
    }
    maxSalesCount = maxText;
  }

  let recurringProcessingModel = terms.recurringProcessingModel;
  if (request.recurringProcessingModel !== undefined && request.recurringProcessingModel !== recurringProcessingModel) {
    if (terms.type === "TokenizeByLink" && request.recurringProcessingModel === null) {
      throw new AppError("RequiredFieldMissing", "recurringProcessingModel cannot be null on a TokenizeByLink link.").at(
        "recurringProcessingModel",
      );
    }
    recurringProcessingModel = request.recurringProcessingModel;
  }

  let returnUrl = terms.returnUrl;
  if (request.returnUrl !== undefined && request.returnUrl !== terms.returnUrl) {
    returnUrl = request.returnUrl === null ? null : checkReturnUrl(request.returnUrl);
  }

  return {
    disabled,
    terms: {
      ...terms,
      amount,
      currency,
      items,
      validUntil,
      maxSalesCount,
      recurringProcessingModel,
      returnUrl,
      culture: request.culture ?? terms.culture,
      themeKey: request.themeKey === undefined ? terms.themeKey : request.themeKey,
      description: request.description === undefined ? terms.description : (request.description ?? ""),
      shopperInfo:
        shopperInfo === undefined
          ? terms.shopperInfo
          : checkShopperInfo(shopperInfo, request.shopperInfo !== undefined ? "shopperInfo" : "shopperInfos"),
    },
  };
}

function sameItems(a: Item[], b: Item[]): boolean {
  return (
    a.length === b.length &&
    a.every((item, i) => {
      const other = b[i]!;
      return (
        item.name === other.name &&
        item.quantity === other.quantity &&
        item.unitPrice === other.unitPrice &&
        item.amountWithoutDiscount === other.amountWithoutDiscount &&
        item.amount === other.amount
      );
    })
  );
}
