// Which processor a terminal takes its money through, and the credentials it needs
// (docs/processors.md). The sandbox is every terminal's default. Secrets live here in clear only
// in memory: the database keeps them encrypted under the keyring, and nothing shows them again
// once they are set.

export type ProcessorEnvironment = "test" | "live";

export interface SandboxConfig {
  type: "sandbox";
}

/** The live gateway itself: its hosted checkout, token payments and modifications. */
export interface StraumurConfig {
  type: "straumur";
  environment: ProcessorEnvironment;
  /** Secret: the gateway's `X-API-key`. */
  apiKey: string;
  /** The terminal at the gateway (12 characters). */
  terminalIdentifier: string;
  /** Secret: hex key the gateway signs its webhooks with. */
  hmacKey: string;
  themeKey: string | null;
  /** Replaces the gateway's API base (the part before `/hostedcheckout`); only when the operator allows it. */
  baseUrl: string | null;
}

export interface AdyenConfig {
  type: "adyen";
  environment: ProcessorEnvironment;
  /** Secret. */
  apiKey: string;
  merchantAccount: string;
  /** Secret: hex key of Adyen's notification HMAC. */
  hmacKey: string;
  /** Required for live. */
  liveEndpointUrlPrefix: string | null;
  baseUrl: string | null;
}

export interface StripeConfig {
  type: "stripe";
  /** Secret: `sk_test_…` or `sk_live_…` (test or live follows the key). */
  secretKey: string;
  /** Secret: `whsec_…`. */
  webhookSecret: string;
  baseUrl: string | null;
}

export type ProcessorConfig = SandboxConfig | StraumurConfig | AdyenConfig | StripeConfig;
export type ProcessorType = ProcessorConfig["type"];

export const PROCESSOR_TYPES: readonly ProcessorType[] = ["sandbox", "straumur", "adyen", "stripe"];

/** The fields of each type that are secrets: stored encrypted, shown masked. */
export const SECRET_FIELDS = {
  sandbox: [],
  straumur: ["apiKey", "hmacKey"],
  adyen: ["apiKey", "hmacKey"],
  stripe: ["secretKey", "webhookSecret"],
} as const satisfies { [T in ProcessorType]: readonly (keyof Extract<ProcessorConfig, { type: T }>)[] };

/** A secret as it is shown after it was set: its last four characters only. */
export function maskSecret(secret: string): string {
  return `••••${secret.slice(-4)}`;
}

export function isProcessorType(value: string): value is ProcessorType {
  return (PROCESSOR_TYPES as readonly string[]).includes(value);
}

/** The API bases of the live gateway, as its own plugins name them. */
export const STRAUMUR_BASE_URLS = {
  test: "https://checkout-api.staging.straumur.is/api/v1",
  live: "https://greidslugatt.straumur.is/api/v1",
} as const;

/** Where Adyen's Hosted Checkout pages are served: the origin of a session's `url`. */
export const ADYEN_PAGE_ORIGINS = {
  test: "https://checkoutshopper-test.adyen.com",
  live: "https://checkoutshopper-live.adyen.com",
} as const;

/**
 * The origin of a processor's payment page, from the terminal's non-secret settings; null for the
 * sandbox (its form is Paylink's own) or settings it cannot read.
 */
export function hostedPageOrigin(type: string, settings: unknown): string | null {
  if (type === "stripe") {
    // Stripe Checkout's pages; a simulator (baseUrl) serves its pages on its own origin.
    const baseUrl = settings !== null && typeof settings === "object" && "baseUrl" in settings ? settings.baseUrl : null;
    if (typeof baseUrl !== "string") return "https://checkout.stripe.com";
    try {
      return new URL(baseUrl).origin;
    } catch {
      return null;
    }
  }
  if (type === "adyen") {
    // Adyen's Hosted Checkout pages (the session's `url`); a simulator (baseUrl) serves its pages on
    // its own origin. Live is Adyen's European host: accounts on its other regions' hosts are not
    // served in this version (docs/processors.md#adyen).
    const baseUrl = settings !== null && typeof settings === "object" && "baseUrl" in settings ? settings.baseUrl : null;
    if (typeof baseUrl !== "string") {
      const live = settings !== null && typeof settings === "object" && "environment" in settings && settings.environment === "live";
      return live ? ADYEN_PAGE_ORIGINS.live : ADYEN_PAGE_ORIGINS.test;
    }
    try {
      return new URL(baseUrl).origin;
    } catch {
      return null;
    }
  }
  if (type !== "straumur" || settings === null || typeof settings !== "object") return null;
  const baseUrl = "baseUrl" in settings ? settings.baseUrl : undefined;
  const environment = "environment" in settings ? settings.environment : undefined;
  const base = typeof baseUrl === "string" ? baseUrl : environment === "live" ? STRAUMUR_BASE_URLS.live : STRAUMUR_BASE_URLS.test;
  try {
    return new URL(base).origin;
  } catch {
    return null;
  }
}

/** Stripe has no separate environments: a `sk_live_` key takes real money, a `sk_test_` key does not. */
export function stripeEnvironment(secretKey: string): ProcessorEnvironment {
  return secretKey.startsWith("sk_live_") ? "live" : "test";
}

/**
 * A configuration as it is shown after it was set (admin API, portal): every field but the
 * secrets, which are masked; Stripe's environment, which follows its key, is spelled out.
 */
export type ProcessorView = SandboxConfig | StraumurConfig | AdyenConfig | (StripeConfig & { environment: ProcessorEnvironment });

export function processorView(config: ProcessorConfig): ProcessorView {
  // Each case masks exactly its type's SECRET_FIELDS; test/admin/terminal-processors.test.ts checks
  // that no secret of any type is shown in clear.
  switch (config.type) {
    case "sandbox":
      return { type: "sandbox" };
    case "straumur":
      return { ...config, apiKey: maskSecret(config.apiKey), hmacKey: maskSecret(config.hmacKey) };
    case "adyen":
      return { ...config, apiKey: maskSecret(config.apiKey), hmacKey: maskSecret(config.hmacKey) };
    case "stripe":
      return {
        ...config,
        environment: stripeEnvironment(config.secretKey),
        secretKey: maskSecret(config.secretKey),
        webhookSecret: maskSecret(config.webhookSecret),
      };
  }
}

/** Where a terminal's processor sends its notifications: the address to register at the processor. */
export function processorWebhookUrl(publicBaseUrl: string, terminalIdentifier: string): string {
  return `${publicBaseUrl}/processors/${terminalIdentifier}/webhook`;
}
