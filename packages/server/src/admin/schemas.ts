// Request schemas of /admin/v1: they validate, type the handlers and feed the OpenAPI document.
import Type from "typebox";
import { ROLES } from "../domain/portal/roles.ts";
import { WEBHOOK_AUTHORIZATION_MAX_LENGTH, WEBHOOK_AUTHORIZATION_PATTERN } from "../domain/webhooks/authorization-value.ts";
import { PROCESSOR_TYPES, type ProcessorType } from "../payments/processor-config.ts";

const Id = Type.String({ minLength: 1, maxLength: 64 });

export const MerchantParams = Type.Object({ merchantId: Id });
export const ApiKeyParams = Type.Object({ merchantId: Id, keyId: Id });
export const WebhookParams = Type.Object({ merchantId: Id, webhookId: Id });
export const DeliveryParams = Type.Object({ merchantId: Id, deliveryId: Id });
export const ThemeParams = Type.Object({ merchantId: Id, themeKey: Id });
export const TerminalParams = Type.Object({ merchantId: Id, terminalIdentifier: Id });

/** Paging of the admin lists: `page` 0-based, `pageSize` 1–100 (default 20). */
const Page = Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 }));
const PageSize = Type.Optional(Type.Integer({ minimum: 1, maximum: 100 }));

export const CreateMerchantBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });

const ProcessorText = (maxLength: number, description: string) => Type.Optional(Type.String({ maxLength, description }));
const OptionalProcessorText = (maxLength: number, description: string) =>
  Type.Optional(Type.Unsafe<string | null>({ type: ["string", "null"], maxLength, description }));

/**
 * A terminal's processor (docs/processors.md#configuring-a-terminal). Which fields each type needs
 * is checked by domain/processors/processor-settings.ts, which names the field in its error; the
 * schema only lists every field any type takes, so the reference shows them and others are refused.
 */
const Processor = Type.Object(
  {
    type: Type.Unsafe<ProcessorType>({
      type: "string",
      enum: [...PROCESSOR_TYPES],
      description: "sandbox (the default), straumur, adyen or stripe",
    }),
    environment: ProcessorText(10, "straumur, adyen: test or live (Stripe's follows its key)"),
    apiKey: ProcessorText(1000, "straumur, adyen: secret; shown masked afterwards"),
    terminalIdentifier: ProcessorText(64, "straumur: the terminal at the gateway (12 characters)"),
    hmacKey: ProcessorText(1000, "straumur, adyen: secret, hexadecimal; the key the processor signs its notifications with"),
    themeKey: OptionalProcessorText(64, "straumur: the gateway's theme of its payment page"),
    merchantAccount: ProcessorText(200, "adyen: the merchant account"),
    liveEndpointUrlPrefix: OptionalProcessorText(100, "adyen: the prefix of the live API's host; required for live"),
    secretKey: ProcessorText(1000, "stripe: secret, sk_test_… or sk_live_…"),
    webhookSecret: ProcessorText(1000, "stripe: secret, whsec_…"),
    baseUrl: OptionalProcessorText(
      2048,
      "any real processor: replaces its API base (a simulator); only with PAYLINK_PROCESSOR_BASE_URLS=allow",
    ),
  },
  { additionalProperties: false, description: "Which processor takes the terminal's money, with its credentials." },
);

export const CreateTerminalBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200 })),
    currencies: Type.Optional(Type.Array(Type.String({ minLength: 3, maxLength: 3 }), { minItems: 1, maxItems: 200 })),
    processor: Type.Optional(Processor),
  },
  { additionalProperties: false },
);

export const SetTerminalProcessorBody = Type.Object({ processor: Processor }, { additionalProperties: false });

export const CreateApiKeyBody = Type.Object({ name: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false });

export const CreateUserBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    password: Type.String({ minLength: 10, maxLength: 1000 }),
    role: Type.Optional(
      Type.Union(
        ROLES.map((role) => Type.Literal(role)),
        { description: "The user's portal role (docs/portal.md#users-and-roles); owner when left out." },
      ),
    ),
  },
  { additionalProperties: false },
);

const ThemeName = Type.String({ minLength: 1, maxLength: 100 });
const PrimaryColor = Type.String({ pattern: "^#[0-9a-fA-F]{6}$", description: "#rrggbb" });
const LogoUrl = Type.String({
  maxLength: 100_000,
  description:
    "The logo: an https URL Paylink downloads once, or a data:image/(png|jpeg|gif|webp);base64 URL; at most 64 KB. Paylink serves its own copy.",
});

export const CreateThemeBody = Type.Object(
  { name: ThemeName, primaryColor: Type.Optional(PrimaryColor), logoUrl: Type.Optional(LogoUrl) },
  { additionalProperties: false },
);
/** Fields left out stay as they are; logoUrl "" removes the logo. */
export const UpdateThemeBody = Type.Object(
  {
    name: Type.Optional(ThemeName),
    primaryColor: Type.Optional(PrimaryColor),
    logoUrl: Type.Optional(LogoUrl),
  },
  { additionalProperties: false },
);

const WebhookUrl = Type.String({ minLength: 1, maxLength: 2048, description: "https URL that receives the payment webhooks" });
/** Sent verbatim as the Authorization header: printable ASCII, single inner spaces (e.g. "Bearer abc"). */
const WebhookApiKey = Type.String({
  minLength: 1,
  maxLength: WEBHOOK_AUTHORIZATION_MAX_LENGTH,
  pattern: WEBHOOK_AUTHORIZATION_PATTERN,
  description: "printable ASCII, sent verbatim as the Authorization header",
});

const DisputeEvents = Type.Boolean({
  description:
    "Also send Dispute events (chargebacks at a real processor); off by default, as the live gateway's receivers refuse unknown event types",
});

export const CreateWebhookBody = Type.Object(
  { url: WebhookUrl, apiKey: Type.Optional(WebhookApiKey), disputeEvents: Type.Optional(DisputeEvents) },
  { additionalProperties: false },
);
export const UpdateWebhookBody = Type.Object(
  { url: Type.Optional(WebhookUrl), apiKey: Type.Optional(WebhookApiKey), disputeEvents: Type.Optional(DisputeEvents) },
  { additionalProperties: false },
);

export const DeliveriesQuery = Type.Object(
  {
    page: Page,
    pageSize: PageSize,
    webhookId: Type.Optional(Id),
    state: Type.Optional(Type.Union([Type.Literal("Pending"), Type.Literal("Delivered"), Type.Literal("Failed")])),
  },
  { additionalProperties: false },
);

export const MailQuery = Type.Object({ page: Page, pageSize: PageSize }, { additionalProperties: false });

export const MerchantsQuery = Type.Object({ page: Page, pageSize: PageSize }, { additionalProperties: false });

/** Filters of the audit log's read (docs/admin-api.md#audit-log); dates are instants (ISO 8601). */
export const AuditQuery = Type.Object(
  {
    page: Page,
    pageSize: PageSize,
    action: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "one action name, e.g. payment.refund" })),
    actor: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: "a person's e-mail or an API key's prefix" })),
    objectId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    from: Type.Optional(Type.String({ format: "date-time", description: "entries at or after this instant" })),
    to: Type.Optional(Type.String({ format: "date-time", description: "entries before this instant" })),
  },
  { additionalProperties: false },
);
