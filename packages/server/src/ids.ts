// Every identifier and generated secret of Paylink, with its prefix and its entropy, in one place.
// Everything a stranger could guess to reach someone else's data is drawn from the OS's CSPRNG
// with enough entropy that guessing is hopeless.
import { createHash, randomBytes, randomInt } from "node:crypto";
import { sql } from "kysely";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const UPPER_ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER_ALNUM = "0123456789abcdefghijklmnopqrstuvwxyz";

export function randomString(length: number, alphabet: string): string {
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** `bytes` random bytes as text: a page's CSP nonce, a checkout form's attempt key. */
export function randomToken(bytes: number, encoding: "base64" | "base64url"): string {
  return randomBytes(bytes).toString(encoding);
}

/** A payment-link reference: 16 base62 characters (≈95 bits), URL-safe, not guessable. */
export const newLinkReference = () => randomString(16, BASE62);
/** A hosted-checkout session's checkoutReference: 50 lowercase letters and digits (≈258 bits), as the live gateway's. */
export const newSessionReference = () => randomString(50, LOWER_ALNUM);
/** A checkoutReference (submission id): 20 base62 characters. */
export const newCheckoutReference = () => randomString(20, BASE62);
export const newMerchantId = () => `mer_${randomString(16, BASE62)}`;
/** docs/admin-api.md#terminals: a 12-character terminal identifier, lowercase hex. */
export const newTerminalIdentifier = () => randomBytes(6).toString("hex");
export const newApiKeyId = () => `key_${randomString(16, BASE62)}`;
export const newThemeKey = () => `thm_${randomString(12, BASE62)}`;
export const newUserId = () => `usr_${randomString(16, BASE62)}`;
export const newInvitationId = () => `inv_${randomString(16, BASE62)}`;
/** The secret of a one-time link (invitation, password reset): 256 bits; only its hash is stored. */
export const newLinkToken = () => randomToken(32, "base64url");
export const newWebhookId = () => `whk_${randomString(16, BASE62)}`;
/** A generated webhook apiKey (when the merchant does not bring one): ≈190 bits, like our own API keys. */
export const newWebhookApiKey = () => `whs_${randomString(32, BASE62)}`;
/**
 * A webhook delivery id (`msg_` + 32 hex), made by the database: the outbox writes one delivery
 * per endpoint in a single INSERT … SELECT, so the id is an SQL expression, not a JS string.
 */
export const NEW_DELIVERY_ID_TEXT = "'msg_' || replace(gen_random_uuid()::text, '-', '')";
export const newDeliveryIdSql = sql.raw<string>(NEW_DELIVERY_ID_TEXT);
/** Upper-case letters and digits, as the processor's references and tokens are (docs/checkout.md#sandbox-cards). */
export const newUpperAlnum = (length: number) => randomString(length, UPPER_ALNUM);

/** An API key: `plk_` + 32 base62 characters (≈190 bits). Shown once, stored only as a hash. */
export function newApiKey(): string {
  return `plk_${randomString(32, BASE62)}`;
}

export function hashApiKey(apiKey: string): string {
  return createHash("sha256").update(apiKey, "utf8").digest("hex");
}

/** A webhook HMAC key: 64 hex characters (32 bytes), docs/webhooks.md#endpoints. */
export function newHmacKey(): string {
  return randomBytes(32).toString("hex");
}
