import { createHmac } from "node:crypto";
import { base64DigestMatches, hmacKeyFromHex } from "./hmac.js";
import { describeHexKeyProblem, describeType, errorText } from "./webhook-input.js";

// Standard Webhooks (https://www.standardwebhooks.com): `v1,<base64 HMAC-SHA256>` over
// `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the same bytes as the hmacSignature.

export interface StandardWebhookContent {
  /** The `webhook-id`: stable across retries of one message, so receivers can de-duplicate. */
  id: string;
  /** Unix time in seconds. */
  timestamp: number;
  /** The exact request body that is sent. */
  body: string | Uint8Array;
}

const STANDARD_WEBHOOK_HEADER_NAMES = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const;
type StandardWebhookHeaderName = (typeof STANDARD_WEBHOOK_HEADER_NAMES)[number];

// A type alias rather than an interface so it can be passed where any header record is expected.
export type StandardWebhookHeaders = {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

/**
 * The `webhook-signature` value for one message: `v1,<base64>`.
 * @throws TypeError for a key that is not hex, or a timestamp that is not whole seconds.
 */
export function signStandardWebhook(content: StandardWebhookContent, hexKey: string): string {
  const { id, timestamp, body } = content;
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TypeError(`timestamp must be a whole number of seconds since the epoch, got ${String(timestamp)}`);
  }
  return `v1,${standardDigest(id, String(timestamp), body, hmacKeyFromHex(hexKey)).toString("base64")}`;
}

/** The three Standard Webhooks headers for a message; what the server puts on every delivery. */
export function standardWebhookHeaders(id: string, timestamp: number, body: string | Uint8Array, hexKey: string): StandardWebhookHeaders {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signStandardWebhook({ id, timestamp, body }, hexKey),
  };
}

function standardDigest(id: string, timestamp: string, body: string | Uint8Array, key: Buffer): Buffer {
  // Bytes are hashed as received: decoding a Buffer body to text first could alter invalid UTF-8.
  const hmac = createHmac("sha256", key).update(`${id}.${timestamp}.`, "utf8");
  if (typeof body === "string") hmac.update(body, "utf8");
  else hmac.update(body);
  return hmac.digest();
}

/** Request headers as Node (`req.headers`), Express, Fastify or fetch (`Headers`) expose them. */
export type WebhookRequestHeaders =
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | undefined | null>>;

export interface VerifyStandardWebhookOptions {
  /** How far the timestamp may be from now, either way. Default 300 s, as Standard Webhooks advises. */
  toleranceSeconds?: number;
  /** The current time; for tests. */
  now?: Date;
}

export type StandardWebhookFailureReason =
  | "missing_header"
  | "invalid_timestamp"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "bad_signature"
  | "bad_key"
  | "wrong_type";

export type StandardWebhookVerification =
  | { valid: true; webhookId: string; timestamp: number }
  | { valid: false; reason: StandardWebhookFailureReason; detail: string };

/**
 * Verifies the Standard Webhooks headers of a delivery against its raw body. The signature
 * header may list several space-separated `v1,<sig>` entries (e.g. during a key rotation);
 * one match is enough. Never throws for anything in the request.
 * @throws RangeError only for an invalid `toleranceSeconds` or `now` (a programming error).
 */
export function verifyStandardWebhook(
  headers: WebhookRequestHeaders,
  body: string | Uint8Array,
  hexKey: string,
  options: VerifyStandardWebhookOptions = {},
): StandardWebhookVerification {
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new RangeError(`toleranceSeconds must be a finite number >= 0, got ${String(toleranceSeconds)}`);
  }
  const nowMs = (options.now ?? new Date()).getTime();
  if (!Number.isFinite(nowMs)) throw new RangeError("now must be a valid Date");
  const fail = (reason: StandardWebhookFailureReason, detail: string) => ({ valid: false as const, reason, detail });

  const keyProblem = describeHexKeyProblem(hexKey);
  if (keyProblem !== undefined) return fail("bad_key", keyProblem);
  if (typeof body !== "string" && !(body instanceof Uint8Array)) {
    return fail("wrong_type", `body must be the raw request body (string or Buffer), got ${describeType(body)}`);
  }

  const received: Partial<Record<StandardWebhookHeaderName, string>> = {};
  for (const name of STANDARD_WEBHOOK_HEADER_NAMES) {
    let value: string | undefined;
    try {
      value = readHeader(headers, name);
    } catch (error) {
      return fail("wrong_type", `the headers could not be read: ${errorText(error)}`);
    }
    if (value === undefined || value.trim() === "") return fail("missing_header", `the ${name} header is missing`);
    received[name] = value;
  }
  const { "webhook-id": webhookId, "webhook-signature": signatureHeader } = received as StandardWebhookHeaders;
  const timestampHeader = (received as StandardWebhookHeaders)["webhook-timestamp"].trim();

  if (!/^\d{1,15}$/.test(timestampHeader)) {
    return fail("invalid_timestamp", "webhook-timestamp must be whole seconds since the epoch");
  }
  const timestamp = Number(timestampHeader);
  const ageSeconds = nowMs / 1000 - timestamp;
  if (ageSeconds > toleranceSeconds) {
    return fail("timestamp_too_old", `webhook-timestamp is ${Math.floor(ageSeconds)} s old; at most ${toleranceSeconds} s is accepted`);
  }
  if (-ageSeconds > toleranceSeconds) {
    return fail(
      "timestamp_too_new",
      `webhook-timestamp is ${Math.ceil(-ageSeconds)} s in the future; at most ${toleranceSeconds} s is accepted`,
    );
  }

  const expected = standardDigest(webhookId, timestampHeader, body, hmacKeyFromHex(hexKey));
  const candidates = signatureHeader
    .split(/\s+/)
    // A repeated header reaches Node joined with ", "; Base64 has no commas, so one trailing
    // comma can only be that separator.
    .map((entry) => entry.replace(/,$/, ""))
    .filter((entry) => entry.startsWith("v1,"))
    .map((entry) => entry.slice("v1,".length));
  if (candidates.length === 0) return fail("bad_signature", "webhook-signature has no v1 signature");
  // Every candidate is checked, so the time taken does not tell which one matched.
  let matched = false;
  for (const candidate of candidates) matched = base64DigestMatches(expected, candidate) || matched;
  if (!matched) return fail("bad_signature", "no v1 signature in webhook-signature matches the body and this HMAC key");
  return { valid: true, webhookId, timestamp };
}

function readHeader(headers: WebhookRequestHeaders, name: string): string | undefined {
  if (typeof headers !== "object" || headers === null) return undefined;
  if (typeof headers.get === "function") {
    return (headers as { get(name: string): string | null | undefined }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, unknown>>;
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== name) continue;
    const value = record[key];
    if (typeof value === "string") return value;
    // Some servers keep a repeated header as an array; signature entries are space-separated.
    if (Array.isArray(value) && value.every((part) => typeof part === "string")) return value.join(" ");
    return undefined;
  }
  return undefined;
}
