// Wire types of the payment-link API (docs/api.md). Field names follow Straumur's payment-links
// API, so an integration written against it type-checks against Paylink too.

export type PaymentLinkType = "PayByLink" | "TokenizeByLink";

/**
 * Derived on every read, in this order: Disabled, Completed (a tokenize link whose card was
 * saved), Used (sales cap reached), Expired (past `validUntil`), Active.
 */
export type PaymentLinkStatus = "Active" | "Expired" | "Used" | "Disabled" | "Completed";

/** How a saved card may be charged later. On a PayByLink it means "pay and also save the card". */
export type RecurringProcessingModel = "CardOnFile" | "Subscription" | "UnscheduledCardOnFile";

/** Default language of the checkout page. */
export type Culture = "is" | "en";

export type ShopperField = "Ssn" | "FullName" | "Address" | "PostCode" | "City" | "Country" | "Telephone" | "EmailAddress" | "Comments";

/** `Prefilled` fields show `prefilledValue` read-only; `Hidden` fields are not asked. */
export type RequirementType = "Required" | "Optional" | "Hidden" | "Prefilled";

/** A cart line. All amounts are integers in minor units of the link currency. */
export interface Item {
  name: string;
  quantity: number;
  unitPrice: number;
  amountWithoutDiscount: number;
  /** Payable amount after discount; at most `amountWithoutDiscount`. */
  amount: number;
}

export interface ShopperInfo {
  field: ShopperField;
  requirementType: RequirementType;
  /** Required for `Prefilled`, null or absent otherwise. */
  prefilledValue?: string | null;
}

export interface SubmissionAnswer {
  field: string;
  value: string;
}

/** One payment or tokenization attempt through a link's checkout page. */
export interface Submission {
  answers: SubmissionAnswer[];
  /** True when the attempt succeeded. */
  completed: boolean;
  amount: number;
  currency: string;
  /** The saved card's token when the attempt tokenized a card. */
  token: string | null;
  /** Paylink extension: the id also sent as the webhook's `checkoutReference`. */
  checkoutReference?: string;
  /** The processor's reference of the payment: refund it and read it by this. Null before an answer. */
  payfacReference?: string | null;
  /** The sum of this payment's refunds that succeeded. */
  refundedAmount?: number;
  /** Paylink extension: ISO 8601 time of the attempt. */
  createdAt?: string;
}

/** A payment link as read with `GET /paymentlinks/{reference}` (docs/api.md#the-payment-link-object). */
export interface PaymentLink {
  paymentLinkReference: string;
  terminalIdentifier: string;
  type: PaymentLinkType;
  status: PaymentLinkStatus;
  /** Minor units; 0 for TokenizeByLink. */
  amount: number;
  currency: string;
  items: Item[];
  recurringProcessingModel: RecurringProcessingModel | null;
  culture: Culture;
  themeKey: string | null;
  /** For the merchant only; never shown to the shopper. */
  description: string;
  returnUrl: string | null;
  /** Where the shopper opens the link. */
  url: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601, or null for a link that never expires. */
  validUntil: string | null;
  visitCount: number;
  salesCount: number;
  /** Null means unlimited. */
  maxSalesCount: number | null;
  shopperInfo: ShopperInfo[];
  submissions: Submission[];
}

/** Fields of every success body. */
export interface ResponseEnvelope {
  /** ISO 8601 UTC. */
  responseDateTime: string;
  /** A UUID; quote it when asking for support. */
  responseIdentifier: string;
}

/** Body of `POST /paymentlinks/create` (docs/api.md#create). */
export interface CreatePaymentLinkRequest {
  type: PaymentLinkType;
  /** 12 characters; from the portal's terminal list. */
  terminalIdentifier: string;
  /** Integer minor units. PayByLink > 0 (ISK must end in 00); TokenizeByLink = 0. */
  amount: number;
  /** ISO 4217 code, e.g. `ISK`. */
  currency: string;
  /** Required for PayByLink (their amounts add up to `amount`); absent or empty for TokenizeByLink. */
  items?: Item[];
  recurringProcessingModel?: RecurringProcessingModel;
  /** Default `is`. */
  culture?: Culture;
  themeKey?: string;
  /** ISO 8601, in the future. Absent: never expires. Do not send together with `validUntil`. */
  expiresAt?: string;
  /** Alias of `expiresAt`. */
  validUntil?: string;
  /** At most 500 characters; not shown to the shopper. */
  description?: string;
  /** Absolute https URL the shopper is sent to after paying. */
  returnUrl?: string;
  /** Most successful payments allowed; absent = unlimited. Do not send together with `maxSalesCount`. */
  exactSalesCount?: number;
  /** Alias of `exactSalesCount`. */
  maxSalesCount?: number;
  /** Do not send together with `shopperInfos`. */
  shopperInfo?: ShopperInfo[];
  /** Alias of `shopperInfo`. */
  shopperInfos?: ShopperInfo[];
}

export interface CreatePaymentLinkResponse extends ResponseEnvelope {
  paymentLinkReference: string;
  url: string;
}

export interface GetPaymentLinkResponse extends ResponseEnvelope {
  paymentLink: PaymentLink;
}

/** Fields the server manages itself and ignores in an update, whatever their value. */
type ServerManagedField = "url" | "createdAt" | "visitCount" | "salesCount";

/**
 * Body of `POST /paymentlinks/update` (docs/api.md#update): the link as read, changed, without
 * `submissions`. `status` may be set to `Active` or `Disabled`.
 */
export type UpdatePaymentLinkRequest = Omit<PaymentLink, "submissions" | ServerManagedField> &
  Partial<Pick<PaymentLink, ServerManagedField>>;

export interface DisablePaymentLinkRequest {
  paymentLinkReference: string;
}

/** Query of `GET /paymentlinks` (docs/api.md#list). */
export interface ListPaymentLinksQuery {
  /** 0-based. Default 0. */
  page?: number;
  /** 1-100. Default 20. */
  pageSize?: number;
  status?: PaymentLinkStatus;
  type?: PaymentLinkType;
  /** Created at or after this time (ISO 8601 text or a Date). */
  createdFrom?: string | Date;
  /** Created at or before this time (ISO 8601 text or a Date). */
  createdTo?: string | Date;
  /** Matches the reference or the description. */
  search?: string;
}

/** One entry of the list (docs/api.md#list). */
export type PaymentLinkSummary = Pick<
  PaymentLink,
  | "paymentLinkReference"
  | "description"
  | "amount"
  | "currency"
  | "type"
  | "status"
  | "url"
  | "createdAt"
  | "validUntil"
  | "visitCount"
  | "salesCount"
  | "maxSalesCount"
>;

export interface ListPaymentLinksResponse extends ResponseEnvelope {
  /** Newest first. */
  data: PaymentLinkSummary[];
  /** Number of links matching the filters, over all pages. */
  totalCount: number;
}

/** Error codes of docs/api.md#errors. The wire value is always a string. */
export type KnownErrorCode =
  | "1000" // invalid JSON
  | "1005" // wrong JSON type
  | "1006" // unknown field
  | "000" // required field missing or empty
  | "2002" // must be greater
  | "2003" // unknown enum value
  | "2005" // time in the past
  | "2007" // item amounts do not add up
  | "2008" // unsupported value
  | "2009" // too long / too many
  | "2010" // theme not found
  | "2011" // currency not accepted by terminal
  | "2012" // too short
  | "2013" // fields that cannot be used together, or cannot change
  | "2014" // payment link not found (404)
  | "2016" // terminal not found
  | "2017" // wrong exact length
  | "2019" // amount too high
  | "2023" // tokenization amount must be 0
  | "2025" // item amount above amount without discount
  | "2026" // ISK amount must end in 00
  | "3001" // unauthenticated (401)
  | "3002" // rate limited (429)
  | "3003" // state conflict (409)
  | "3004" // idempotency key reused with another body (422)
  | "3005" // body too large (413)
  | "3006" // unsupported media type (415)
  | "3007" // idempotent request still in progress (409)
  | "5002" // the card processor did not answer a saved-card charge; nothing stays charged (503)
  | "5000"; // internal error (500)

/** Body of every error response. */
export interface ErrorBody {
  /** One of {@link KnownErrorCode}; typed open so a newer server's codes still fit. */
  errorCode: KnownErrorCode | (string & {});
  /** A sentence naming the field and value at fault. */
  errorMessage: string;
  responseIdentifier: string;
  responseDateTime: string;
}
