// The one check of a terminal's processor configuration (docs/processors.md#configuring-a-terminal):
// what the admin API takes in `processor`, and what a stored row is read back through, so a
// configuration Paylink uses has always passed the same rules. Errors name the field
// ("processor.hmacKey") and use the catalogue's codes. Values and messages never repeat a secret.
import {
  isProcessorType,
  PROCESSOR_TYPES,
  type ProcessorConfig,
  type ProcessorEnvironment,
  type ProcessorType,
} from "../../payments/processor-config.ts";
import { AppError } from "../errors.ts";

export interface ProcessorRules {
  /**
   * PAYLINK_PROCESSOR_BASE_URLS=allow: `baseUrl` may replace a processor's API base. Otherwise
   * refused, so that whoever holds the admin token cannot point a terminal's payments (and its
   * secrets) at an address of their choosing.
   */
  allowBaseUrl: boolean;
  /** How the object is named in messages: "processor" in the admin API. */
  field?: string;
}

/** Every field each type takes besides `type` (a field of another type is refused, not ignored). */
const FIELDS_OF = {
  sandbox: [],
  straumur: ["environment", "apiKey", "terminalIdentifier", "hmacKey", "themeKey", "baseUrl"],
  adyen: ["environment", "apiKey", "merchantAccount", "hmacKey", "liveEndpointUrlPrefix", "baseUrl"],
  stripe: ["secretKey", "webhookSecret", "baseUrl"],
} as const satisfies { [T in ProcessorType]: readonly Exclude<keyof Extract<ProcessorConfig, { type: T }>, "type">[] };

const ALL_FIELDS = new Set<string>(["type", ...Object.values(FIELDS_OF).flat()]);

/** Keys and identifiers travel in HTTP headers and URLs: printable ASCII without spaces. */
const TOKEN = /^[\x21-\x7e]+$/;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
/** Adyen builds its live host from it (`{prefix}-checkout-live.adyenpayments.com`): host characters only. */
const LIVE_PREFIX = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;
const STRIPE_SECRET_KEY = /^sk_(?:test|live)_[0-9A-Za-z]+$/;
const STRIPE_WEBHOOK_SECRET = /^whsec_[\x21-\x7e]+$/;
/** What processorView shows instead of a secret: sent back, it is a mistake, never a key. */
const MASK = "••••";

const MAX_SECRET_LENGTH = 1000;
const MIN_HMAC_HEX_DIGITS = 32;
const MAX_HMAC_HEX_DIGITS = 256;

/**
 * The configuration `input` describes, checked field by field.
 * @throws AppError naming the first offending field: UnknownField, RequiredFieldMissing, WrongType,
 * UnknownValue, WrongLength, TooShort, TooLong or UnsupportedValue.
 */
export function processorConfigFrom(input: unknown, rules: ProcessorRules): ProcessorConfig {
  const object = rules.field ?? "processor";
  if (!isRecord(input)) throw new AppError("WrongType", `${object} must be an object.`).at(object);
  const fields = new FieldReader(input, object);
  const type = fields.required("type");
  if (!isProcessorType(type)) {
    throw new AppError("UnknownValue", `${object}.type must be one of ${PROCESSOR_TYPES.map((t) => JSON.stringify(t)).join(", ")}.`).at(
      `${object}.type`,
    );
  }
  const known: readonly string[] = FIELDS_OF[type];
  for (const name of Object.keys(input)) {
    if (name === "type" || known.includes(name)) continue;
    const why = ALL_FIELDS.has(name) ? `is not a field of a ${type} processor` : "is not a known field";
    throw new AppError("UnknownField", `${object}.${name} ${why}.`).at(`${object}.${name}`);
  }
  const baseUrl = () => fields.baseUrl(rules.allowBaseUrl);

  switch (type) {
    case "sandbox":
      return { type };
    case "straumur":
      return {
        type,
        environment: fields.environment(),
        apiKey: fields.secret("apiKey"),
        terminalIdentifier: fields.terminalIdentifier("terminalIdentifier"),
        hmacKey: fields.hmacKey("hmacKey"),
        themeKey: fields.optionalToken("themeKey", 64),
        baseUrl: baseUrl(),
      };
    case "adyen": {
      const environment = fields.environment();
      const config = {
        type,
        environment,
        apiKey: fields.secret("apiKey"),
        merchantAccount: fields.token("merchantAccount", 200),
        hmacKey: fields.hmacKey("hmacKey"),
        liveEndpointUrlPrefix: fields.liveEndpointUrlPrefix(),
        baseUrl: baseUrl(),
      };
      // Adyen's live API has a host of its own per company account; without it no live call can be made.
      if (environment === "live" && config.liveEndpointUrlPrefix === null) {
        throw new AppError(
          "RequiredFieldMissing",
          `${object}.liveEndpointUrlPrefix is required when environment is "live" (Adyen's Customer Area, Developers → API URLs).`,
        ).at(`${object}.liveEndpointUrlPrefix`);
      }
      return config;
    }
    case "stripe":
      return {
        type,
        secretKey: fields.matching("secretKey", STRIPE_SECRET_KEY, "a Stripe secret key: sk_test_… or sk_live_…"),
        webhookSecret: fields.matching("webhookSecret", STRIPE_WEBHOOK_SECRET, "a Stripe webhook signing secret: whsec_…"),
        baseUrl: baseUrl(),
      };
  }
}

/** Reads one field at a time, so every message names the field as `processor.name`. */
class FieldReader {
  readonly #input: Record<string, unknown>;
  readonly #object: string;

  constructor(input: Record<string, unknown>, object: string) {
    this.#input = input;
    this.#object = object;
  }

  #name(field: string): string {
    return `${this.#object}.${field}`;
  }

  #fail(kind: ConstructorParameters<typeof AppError>[0], field: string, problem: string): never {
    throw new AppError(kind, `${this.#name(field)} ${problem}.`).at(this.#name(field));
  }

  /** The value without surrounding white space; undefined when left out, null or empty. */
  #text(field: string): string | undefined {
    const value = this.#input[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") this.#fail("WrongType", field, "must be a string");
    const trimmed = value.trim();
    return trimmed === "" ? undefined : trimmed;
  }

  required(field: string): string {
    return this.#text(field) ?? this.#fail("RequiredFieldMissing", field, "is required");
  }

  environment(): ProcessorEnvironment {
    const value = this.required("environment");
    if (value === "test" || value === "live") return value;
    return this.#fail("UnknownValue", "environment", 'must be one of "test", "live"');
  }

  #lengthAtMost(field: string, value: string, max: number): string {
    if (value.length > max) this.#fail("TooLong", field, `is too long: at most ${max} characters`);
    return value;
  }

  token(field: string, max: number): string {
    const value = this.#lengthAtMost(field, this.required(field), max);
    if (!TOKEN.test(value)) this.#fail("UnsupportedValue", field, "must be printable ASCII without spaces");
    return value;
  }

  optionalToken(field: string, max: number): string | null {
    return this.#text(field) === undefined ? null : this.token(field, max);
  }

  /** A secret as the processor issued it; its masked form (sent back from a listing) is refused. */
  secret(field: string): string {
    const value = this.#lengthAtMost(field, this.required(field), MAX_SECRET_LENGTH);
    if (value.startsWith(MASK)) this.#fail("UnsupportedValue", field, "is the masked value Paylink shows; send the secret itself");
    if (!TOKEN.test(value)) this.#fail("UnsupportedValue", field, "must be printable ASCII without spaces");
    return value;
  }

  matching(field: string, pattern: RegExp, what: string): string {
    const value = this.secret(field);
    if (!pattern.test(value)) this.#fail("UnsupportedValue", field, `must be ${what}`);
    return value;
  }

  hmacKey(field: string): string {
    const value = this.secret(field);
    if (!HEX.test(value)) this.#fail("UnsupportedValue", field, "must be hexadecimal (an even number of 0-9 and a-f)");
    if (value.length < MIN_HMAC_HEX_DIGITS) this.#fail("TooShort", field, `is too short: at least ${MIN_HMAC_HEX_DIGITS} hex digits`);
    if (value.length > MAX_HMAC_HEX_DIGITS) this.#fail("TooLong", field, `is too long: at most ${MAX_HMAC_HEX_DIGITS} hex digits`);
    return value;
  }

  terminalIdentifier(field: string): string {
    const value = this.token(field, 64);
    if (value.length !== 12) this.#fail("WrongLength", field, "must be exactly 12 characters long (the terminal at the processor)");
    return value;
  }

  liveEndpointUrlPrefix(): string | null {
    const value = this.#text("liveEndpointUrlPrefix");
    if (value === undefined) return null;
    this.#lengthAtMost("liveEndpointUrlPrefix", value, 100);
    if (!LIVE_PREFIX.test(value)) {
      this.#fail("UnsupportedValue", "liveEndpointUrlPrefix", "must be Adyen's prefix of its live URLs (letters, digits and -)");
    }
    return value;
  }

  /** An absolute http(s) URL without query or fragment, kept without a trailing slash. */
  baseUrl(allowed: boolean): string | null {
    const value = this.#text("baseUrl");
    if (value === undefined) return null;
    if (!allowed) {
      this.#fail("UnsupportedValue", "baseUrl", "is accepted only when the operator sets PAYLINK_PROCESSOR_BASE_URLS=allow");
    }
    this.#lengthAtMost("baseUrl", value, 2048);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return this.#fail("UnsupportedValue", "baseUrl", "must be an absolute http(s) URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") this.#fail("UnsupportedValue", "baseUrl", "must be an http(s) URL");
    if (url.username || url.password || url.search || url.hash) {
      this.#fail("UnsupportedValue", "baseUrl", "must have no user, password, query or fragment");
    }
    return value.replace(/\/+$/, "");
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
