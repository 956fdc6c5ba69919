import Type from "typebox";

export const MerchantParams = Type.Object({ merchantId: Type.String({ minLength: 1, maxLength: 64 }) });

export const CreateMerchantBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });

export const CreateTerminalBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200 })),
    currencies: Type.Optional(Type.Array(Type.String({ minLength: 3, maxLength: 3 }), { minItems: 1, maxItems: 200 })),
  },
  { additionalProperties: false },
);

export const CreateApiKeyBody = Type.Object({ name: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false });

export const CreateUserBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    password: Type.String({ minLength: 10, maxLength: 1000 }),
  },
  { additionalProperties: false },
);

export const CreateThemeBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    primaryColor: Type.Optional(Type.String({ pattern: "^#[0-9a-fA-F]{6}$", description: "#rrggbb" })),
    logoUrl: Type.Optional(
      Type.String({
        maxLength: 100_000,
        description:
          "The logo: an https URL Paylink downloads once, or a data:image/(png|jpeg|gif|webp);base64 URL; at most 64 KB. Paylink serves its own copy.",
      }),
    ),
  },
  { additionalProperties: false },
);
