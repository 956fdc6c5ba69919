// The wire format of /api/v1 as TypeBox schemas: one definition validates requests, types the
// handlers and feeds the OpenAPI document.
import Type, { type Static, type TSchema } from "typebox";
import type { CreateLinkRequest } from "../domain/links/create.ts";
import {
  CULTURES,
  LINK_STATUSES,
  LINK_TYPES,
  MAX_AMOUNT,
  MAX_DESCRIPTION_LENGTH,
  MAX_ITEMS,
  RECURRING_PROCESSING_MODELS,
  REQUIREMENT_TYPES,
  SHOPPER_FIELDS,
} from "../domain/links/types.ts";
import type { UpdateLinkRequest } from "../domain/links/update.ts";
import type { Same } from "../types/same.ts";

/** `T | null`, written as one JSON-Schema node so a bad value reports one clear error. */
function Nullable<T extends TSchema>(schema: T, description?: string) {
  const node = schema as unknown as Record<string, unknown>;
  return Type.Unsafe<Static<T> | null>({
    ...node,
    type: [node.type, "null"],
    ...(Array.isArray(node.enum) ? { enum: [...(node.enum as unknown[]), null] } : {}),
    ...(description ? { description } : {}),
  });
}

const StringEnum = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...(description ? { description } : {}) });

const Amount = (description: string) => Type.Integer({ maximum: MAX_AMOUNT, description });

export const LinkType = StringEnum(LINK_TYPES, "PayByLink collects a payment; TokenizeByLink saves a card.");
export const LinkStatus = StringEnum(LINK_STATUSES);
export const RecurringProcessingModel = StringEnum(RECURRING_PROCESSING_MODELS);
export const Culture = StringEnum(CULTURES, "Default language of the checkout page.");

export const Item = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
    unitPrice: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description: "Minor units." }),
    amountWithoutDiscount: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description: "Minor units, before discount." }),
    amount: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description: "Minor units, payable; at most amountWithoutDiscount." }),
  },
  { additionalProperties: false },
);

export const ShopperInfoEntry = Type.Object(
  {
    field: StringEnum(SHOPPER_FIELDS),
    requirementType: StringEnum(REQUIREMENT_TYPES),
    prefilledValue: Type.Optional(Nullable(Type.String({ maxLength: 1000 }), "Required for Prefilled, otherwise null.")),
  },
  { additionalProperties: false },
);

const TerminalIdentifier = Type.String({ minLength: 12, maxLength: 12, description: "12-character terminal identifier." });
const Currency = Type.String({ minLength: 3, maxLength: 3, description: "ISO 4217 code." });
const Description = Type.String({ maxLength: MAX_DESCRIPTION_LENGTH, description: "For the merchant; never shown to the shopper." });
const DateTimeText = Type.String({ maxLength: 40, description: "ISO 8601 date-time." });
const ReturnUrl = Type.String({ maxLength: 2048, description: "https URL the shopper is sent to after paying." });
const SalesCap = Type.Integer({ minimum: 1, maximum: 1_000_000_000 });

export const CreateLinkBody = Type.Object(
  {
    type: LinkType,
    terminalIdentifier: TerminalIdentifier,
    amount: Amount("Minor units. > 0 for PayByLink (ISK: ends in 00); 0 for TokenizeByLink."),
    currency: Currency,
    items: Type.Optional(
      Type.Array(Item, { maxItems: MAX_ITEMS, description: "Required for PayByLink (may be empty); empty or absent for TokenizeByLink." }),
    ),
    recurringProcessingModel: Type.Optional(Nullable(RecurringProcessingModel)),
    culture: Type.Optional(Nullable(Culture)),
    themeKey: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
    expiresAt: Type.Optional(Nullable(DateTimeText)),
    validUntil: Type.Optional(Nullable(DateTimeText, "Alias of expiresAt.")),
    description: Type.Optional(Nullable(Description)),
    returnUrl: Type.Optional(Nullable(ReturnUrl)),
    exactSalesCount: Type.Optional(Nullable(SalesCap)),
    maxSalesCount: Type.Optional(Nullable(SalesCap, "Alias of exactSalesCount.")),
    shopperInfo: Type.Optional(Nullable(Type.Array(ShopperInfoEntry, { maxItems: 9 }))),
    shopperInfos: Type.Optional(Nullable(Type.Array(ShopperInfoEntry, { maxItems: 9 }), "Alias of shopperInfo.")),
  },
  { additionalProperties: false },
);

export const Reference = Type.String({ minLength: 1, maxLength: 64 });

export const UpdateLinkBody = Type.Object(
  {
    paymentLinkReference: Reference,
    terminalIdentifier: Type.Optional(TerminalIdentifier),
    type: Type.Optional(LinkType),
    themeKey: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
    description: Type.Optional(Nullable(Description)),
    amount: Type.Optional(Amount("Minor units; changes only before the first sale.")),
    currency: Type.Optional(Currency),
    returnUrl: Type.Optional(Nullable(ReturnUrl)),
    status: Type.Optional(LinkStatus),
    culture: Type.Optional(Culture),
    validUntil: Type.Optional(Nullable(DateTimeText)),
    expiresAt: Type.Optional(Nullable(DateTimeText)),
    recurringProcessingModel: Type.Optional(Nullable(RecurringProcessingModel)),
    maxSalesCount: Type.Optional(Nullable(SalesCap)),
    exactSalesCount: Type.Optional(Nullable(SalesCap)),
    items: Type.Optional(Type.Array(Item, { maxItems: MAX_ITEMS })),
    shopperInfo: Type.Optional(Type.Array(ShopperInfoEntry, { maxItems: 9 })),
    shopperInfos: Type.Optional(Type.Array(ShopperInfoEntry, { maxItems: 9, description: "Alias of shopperInfo." })),
    // Server-managed: accepted so a GET result can be posted back, and ignored.
    url: Type.Optional(Type.Unknown({ description: "Ignored (server-managed)." })),
    createdAt: Type.Optional(Type.Unknown({ description: "Ignored (server-managed)." })),
    visitCount: Type.Optional(Type.Unknown({ description: "Ignored (server-managed)." })),
    salesCount: Type.Optional(Type.Unknown({ description: "Ignored (server-managed)." })),
    submissions: Type.Optional(Type.Unknown({ description: "Ignored (server-managed)." })),
  },
  { additionalProperties: false },
);

export const DisableLinkBody = Type.Object({ paymentLinkReference: Reference }, { additionalProperties: false });

// No length cap in the path: a reference that cannot exist is simply not found (404 2014, docs/api.md).
export const ReferenceParams = Type.Object({ reference: Type.String({ minLength: 1 }) });

export const ListLinksQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
    pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    status: Type.Optional(LinkStatus),
    type: Type.Optional(LinkType),
    createdFrom: Type.Optional(DateTimeText),
    createdTo: Type.Optional(DateTimeText),
    search: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

const Envelope = {
  responseDateTime: Type.String({ description: "ISO 8601 UTC time of the response." }),
  responseIdentifier: Type.String({ description: "UUID of this response." }),
};

export const EnvelopeResponse = Type.Object(Envelope);

export const ErrorResponse = Type.Object({
  errorCode: Type.String({ description: "Catalogue code, e.g. 2026." }),
  errorMessage: Type.String(),
  ...Envelope,
});

export const CreateLinkResponse = Type.Object({
  paymentLinkReference: Type.String(),
  url: Type.String(),
  ...Envelope,
});

export const Submission = Type.Object({
  checkoutReference: Type.String(),
  answers: Type.Array(Type.Object({ field: Type.String(), value: Type.String() })),
  completed: Type.Boolean(),
  amount: Type.Integer(),
  currency: Type.String(),
  token: Nullable(Type.String()),
  payfacReference: Nullable(Type.String(), "The processor's reference of the payment (refund and read it by this)."),
  refundedAmount: Type.Integer({ description: "The sum of this payment's refunds that succeeded." }),
  createdAt: Type.String(),
});

const NullableString = Nullable(Type.String());
const NullableInteger = Nullable(Type.Integer());

export const PaymentLink = Type.Object({
  terminalIdentifier: Type.String(),
  paymentLinkReference: Type.String(),
  themeKey: NullableString,
  description: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
  returnUrl: NullableString,
  status: LinkStatus,
  culture: Culture,
  type: LinkType,
  url: Type.String(),
  createdAt: Type.String(),
  validUntil: NullableString,
  recurringProcessingModel: Nullable(RecurringProcessingModel),
  visitCount: Type.Integer(),
  salesCount: Type.Integer(),
  maxSalesCount: NullableInteger,
  items: Type.Array(Item),
  shopperInfo: Type.Array(
    Type.Object({ field: StringEnum(SHOPPER_FIELDS), requirementType: StringEnum(REQUIREMENT_TYPES), prefilledValue: NullableString }),
  ),
  submissions: Type.Array(Submission),
});

export const GetLinkResponse = Type.Object({ paymentLink: PaymentLink, ...Envelope });

export const LinkSummary = Type.Object({
  paymentLinkReference: Type.String(),
  description: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
  type: LinkType,
  status: LinkStatus,
  url: Type.String(),
  createdAt: Type.String(),
  validUntil: NullableString,
  visitCount: Type.Integer(),
  salesCount: Type.Integer(),
  maxSalesCount: NullableInteger,
});

export const ListLinksResponse = Type.Object({ data: Type.Array(LinkSummary), totalCount: Type.Integer(), ...Envelope });

/** Error responses every authenticated JSON route can give, for OpenAPI. */
export const ERROR_RESPONSES = {
  400: ErrorResponse,
  401: ErrorResponse,
  404: ErrorResponse,
  409: ErrorResponse,
  413: ErrorResponse,
  415: ErrorResponse,
  422: ErrorResponse,
};

// The domain's request types are pinned to what these schemas accept: a field added, renamed or
// retyped on one side and not on the other fails `npm run typecheck`.
export const createRequestMatchesSchema: Same<Static<typeof CreateLinkBody>, CreateLinkRequest> = true;
/** Accepted on update so a read link can be posted back, and ignored. */
type ServerManagedField = "url" | "createdAt" | "visitCount" | "salesCount" | "submissions";
export const updateRequestMatchesSchema: Same<Omit<Static<typeof UpdateLinkBody>, ServerManagedField>, UpdateLinkRequest> = true;
