// Reading untrusted webhook input (a message body, a key from configuration) into values the
// signing code can use, reporting every problem as data instead of throwing. Shared by
// verifyPaymentWebhook and the CLI; not part of the package's public API.

/** The fields covered by `hmacSignature`, in the order they are joined (docs/webhooks.md#the-hmacsignature step 1). */
export const SIGNED_PAYMENT_FIELDS = [
  "checkoutReference",
  "payfacReference",
  "merchantReference",
  "amount",
  "currency",
  "reason",
  "success",
] as const;
export type SignedPaymentField = (typeof SIGNED_PAYMENT_FIELDS)[number];

/** Signed fields that may be null (docs/webhooks.md#the-message); the others are required. */
const NULLABLE_SIGNED_FIELDS: ReadonlySet<SignedPaymentField> = new Set(["checkoutReference", "merchantReference", "reason"]);

export type MessageProblemReason = "malformed_json" | "missing_signature" | "missing_field" | "wrong_type";
export type MessageReading<T> = { ok: true; value: T } | { ok: false; reason: MessageProblemReason; detail: string };

/** A message whose signed fields are all strings or null, with everything else it carried. */
export type ReadPaymentMessage = Record<string, unknown> & Record<SignedPaymentField, string | null>;

/**
 * Parses a payment webhook message (raw JSON text, its bytes, or an already-parsed object) and
 * checks the types of its signed fields, of `additionalData`, and of `hmacSignature` when
 * `requireSignature` is set. Absent nullable fields come back as null.
 */
export function readPaymentMessage(input: unknown, requireSignature: boolean): MessageReading<ReadPaymentMessage> {
  const parsed = parseJsonObject(input);
  if (!parsed.ok) return parsed;
  const raw = parsed.value;
  const problem = (reason: MessageProblemReason, detail: string) => ({ ok: false as const, reason, detail });
  // Property reads can run caller code (getters, proxies); the never-throws promise holds anyway.
  try {
    const signed: Partial<Record<SignedPaymentField, string | null>> = {};
    for (const field of SIGNED_PAYMENT_FIELDS) {
      const value = raw[field];
      if (value === undefined || value === null) {
        // Senders that drop null properties are common; absent and null sign identically.
        if (!NULLABLE_SIGNED_FIELDS.has(field)) return problem("missing_field", `${field} is required`);
        signed[field] = null;
      } else if (typeof value === "string") {
        signed[field] = value;
      } else {
        return problem("wrong_type", `${field} must be a string, got ${describeType(value)}`);
      }
    }

    if (requireSignature) {
      const signature = raw.hmacSignature;
      if (signature === undefined || signature === null || signature === "") {
        return problem("missing_signature", "the message has no hmacSignature");
      }
      if (typeof signature !== "string") {
        return problem("wrong_type", `hmacSignature must be a string, got ${describeType(signature)}`);
      }
    }

    const additionalData = raw.additionalData;
    if (additionalData !== undefined && additionalData !== null && !isPlainObject(additionalData)) {
      return problem("wrong_type", `additionalData must be an object, got ${describeType(additionalData)}`);
    }
    return { ok: true, value: { ...raw, ...signed } as ReadPaymentMessage };
  } catch (error) {
    return problem("wrong_type", `the message could not be read: ${errorText(error)}`);
  }
}

function parseJsonObject(input: unknown): MessageReading<Record<string, unknown>> {
  let candidate = input;
  if (input instanceof Uint8Array) candidate = new TextDecoder().decode(input);
  if (typeof candidate === "string") {
    if (candidate.trim() === "") return { ok: false, reason: "malformed_json", detail: "the message is empty" };
    try {
      candidate = JSON.parse(candidate);
    } catch (error) {
      return { ok: false, reason: "malformed_json", detail: `the message is not valid JSON: ${errorText(error)}` };
    }
  }
  if (!isPlainObject(candidate)) {
    return { ok: false, reason: "wrong_type", detail: `the message must be a JSON object, got ${describeType(candidate)}` };
  }
  return { ok: true, value: candidate };
}

/** Why `hexKey` cannot be used as an HMAC key, or undefined when it can. Never echoes the key: it is a secret. */
export function describeHexKeyProblem(hexKey: unknown): string | undefined {
  if (typeof hexKey !== "string") return `HMAC key must be a string of hex digits, got ${describeType(hexKey)}`;
  // An empty key is almost always an unset environment variable; signing with it would "work".
  if (hexKey.length === 0) return "HMAC key is empty";
  const badPosition = hexKey.search(/[^0-9a-fA-F]/);
  if (badPosition !== -1) {
    return `HMAC key must contain only hex digits (0-9, a-f); found a non-hex character at position ${badPosition + 1} of ${hexKey.length}`;
  }
  return undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

export function describeType(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
