// The wire format of hosted-checkout sessions (docs/api.md#hosted-checkout-sessions): the body the
// live gateway's e-commerce plugins send, and the answers. `null` means absent throughout.
import Type, { type Static, type TSchema } from "typebox";
import { CULTURES, MAX_ITEMS, RECURRING_PROCESSING_MODELS } from "../domain/links/types.ts";
import { type CreateSessionRequest, SESSION_STATUSES } from "../domain/sessions/types.ts";
import type { Same } from "../types/same.ts";

const Envelope = {
  responseDateTime: Type.String({ description: "ISO 8601 UTC time of the response." }),
  responseIdentifier: Type.String({ description: "UUID of this response." }),
};

/** Optional, and null means absent (plugins send null for what they do not have). */
function Optional<T extends TSchema>(schema: T) {
  const node = schema as unknown as Record<string, unknown>;
  return Type.Optional(
    Type.Unsafe<Static<T> | null>({
      ...node,
      type: [node.type, "null"].flat(),
      ...(Array.isArray(node.enum) ? { enum: [...(node.enum as unknown[]), null] } : {}),
    }),
  );
}

/** Minor units as an integer or a string of digits (`"48900"`, as the live documentation's examples send). */
const WireAmount = (description: string) => Type.Unsafe<number | string>({ type: ["integer", "string"], maxLength: 20, description });

const StringEnum = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...(description ? { description } : {}) });

const HttpUrl = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });

export const SessionItem = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    amount: WireAmount("Minor units of the line; negative for a discount line."),
    quantity: Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: "Default 1; 2.0 is read as 2." })),
    unitPrice: Optional(WireAmount("Minor units.")),
    amountWithoutDiscount: Optional(WireAmount("Minor units, before discount.")),
  },
  { additionalProperties: false },
);

export const CreateSessionBody = Type.Object(
  {
    amount: WireAmount("Minor units (ISK: ends in 00), > 0; 0 only with recurringProcessingModel (save the card, charge nothing)."),
    currency: Type.String({ minLength: 3, maxLength: 3, description: "ISO 4217 code (any letter case)." }),
    returnUrl: HttpUrl("Where the shopper goes after paying, with checkoutReference appended; http or https, any host."),
    reference: Type.String({
      minLength: 1,
      maxLength: 100,
      description: "Your order id: 1–100 printable characters, not unique; sent back as the webhooks' merchantReference.",
    }),
    terminalIdentifier: Type.String({ minLength: 12, maxLength: 12, description: "A terminal of yours." }),
    expiresAt: Optional(Type.String({ maxLength: 40, description: "ISO 8601; future and at most 24 hours ahead. Default: 24 hours." })),
    culture: Optional(StringEnum(CULTURES, "Language of the page; default is.")),
    themeKey: Optional(Type.String({ minLength: 1, maxLength: 64 })),
    items: Optional(Type.Array(SessionItem, { maxItems: MAX_ITEMS, description: "Shown on the page; at amount > 0 they add up to it." })),
    isManualCapture: Optional(Type.Boolean({ description: "Authorise only; capture later. Default false." })),
    captureHoursDelay: Optional(
      Type.Integer({ minimum: 1, maximum: 672, description: "Capture automatically this many hours after authorisation." }),
    ),
    isPreAuth: Optional(Type.Boolean({ description: "The authorisation may be adjusted before capture." })),
    recurringProcessingModel: Optional(StringEnum(RECURRING_PROCESSING_MODELS, "Also save the card.")),
    merchantShopperReference: Optional(
      Type.String({
        minLength: 3,
        maxLength: 200,
        description:
          "Your shopper: a card saved by this session is kept under it, and your later sessions with the same value offer this shopper's saved cards first (never another merchant's).",
      }),
    ),
    shopperContact: Optional(Type.String({ maxLength: 254, description: "The shopper's e-mail." })),
    abandonUrl: Optional(HttpUrl('The page\'s "back to the shop".')),
  },
  { additionalProperties: false },
);

export const CreateSessionResponse = Type.Object({
  url: Type.String({ description: "The page to send the shopper to." }),
  checkoutReference: Type.String({ description: "50 lowercase letters and digits." }),
  ...Envelope,
});

export const SessionParams = Type.Object({ checkoutReference: Type.String({ minLength: 1 }) });

export const SessionStatusResponse = Type.Object({
  status: StringEnum(SESSION_STATUSES),
  payfacReference: Type.Unsafe<string | null>({
    type: ["string", "null"],
    description: "The authorised payment's when Completed; otherwise null (never an empty string).",
  }),
  ...Envelope,
});

export const PaymentDisableTokenResponse = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  ...Envelope,
});

export const createSessionRequestMatchesSchema: Same<Static<typeof CreateSessionBody>, CreateSessionRequest> = true;
