// The keyring that encrypts secrets at rest (webhook endpoint secrets, two-factor secrets, terminals'
// processor credentials). An endpoint's apiKey and hmacKey must be readable to send a message (a
// processor's keys to call it), so they cannot be hashed like API keys; they are encrypted instead, with
// AES-256-GCM under a key that never enters the database:
//   - PAYLINK_SECRET_KEY (64 hex), required on PostgreSQL (every instance needs the same key);
//   - on the embedded database, when unset, a key generated once into PAYLINK_DATA_DIR/secret.key
//     (mode 0600).
// A stored value is `v1.<key id>.<iv>.<ciphertext+tag>` (base64url). The key id names the key that
// encrypted it, so a wrong key is reported clearly at start, and keys can be rotated
// (PAYLINK_SECRET_KEY_PREVIOUS; values are re-encrypted under the current key at start). The
// row id and column are authenticated as associated data: a ciphertext copied to another row or
// column does not decrypt.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { type Config, ConfigError } from "../config.ts";
import type { Database } from "../db/connect.ts";

const VERSION = "v1";
const HEX_KEY = /^[0-9a-fA-F]{64}$/;
export const SECRET_KEY_FILE = "secret.key";

interface KeyEntry {
  id: string;
  /** The AES-256 key derived for webhook secrets. */
  key: Buffer;
}

export class SecretKeyring {
  readonly #current: KeyEntry;
  readonly #byId: Map<string, KeyEntry>;

  /** @param currentHex the key new values are encrypted with; @param previousHex keys that may still decrypt. */
  constructor(currentHex: string, previousHex: readonly string[] = []) {
    this.#current = deriveEntry(currentHex);
    this.#byId = new Map([this.#current, ...previousHex.map(deriveEntry)].map((entry) => [entry.id, entry]));
  }

  get currentKeyId(): string {
    return this.#current.id;
  }

  knows(keyId: string): boolean {
    return this.#byId.has(keyId);
  }

  /** `context` names where the value lives (row id and column); decrypt needs the same one. */
  encrypt(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#current.key, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return [VERSION, this.#current.id, iv.toString("base64url"), body.toString("base64url")].join(".");
  }

  decrypt(stored: string, context: string): string {
    const [version, keyId, ivText, bodyText, extra] = stored.split(".");
    if (version !== VERSION || !keyId || !ivText || !bodyText || extra !== undefined) {
      throw new SecretDecryptionError("the stored value is not an encrypted secret");
    }
    const entry = this.#byId.get(keyId);
    if (!entry) throw new SecretDecryptionError(`the value was encrypted with key ${keyId}, which is not configured`);
    const body = Buffer.from(bodyText, "base64url");
    if (body.length < 16) throw new SecretDecryptionError("the stored value is truncated");
    try {
      const decipher = createDecipheriv("aes-256-gcm", entry.key, Buffer.from(ivText, "base64url"));
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(body.subarray(body.length - 16));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString("utf8");
    } catch {
      throw new SecretDecryptionError("the stored value does not authenticate under its key (altered, or moved to another row)");
    }
  }

  /** True when the value is encrypted under the current key (nothing to re-encrypt). */
  isCurrent(stored: string): boolean {
    return stored.startsWith(`${VERSION}.${this.#current.id}.`);
  }
}

export class SecretDecryptionError extends Error {
  constructor(message: string) {
    super(`Cannot decrypt a webhook secret: ${message}.`);
    this.name = "SecretDecryptionError";
  }
}

function deriveEntry(hex: string): KeyEntry {
  if (!HEX_KEY.test(hex)) throw new TypeError("a secret key must be 64 hexadecimal characters");
  const master = Buffer.from(hex, "hex");
  // A purpose-bound subkey: the same master key can later protect other things without reuse.
  const key = Buffer.from(hkdfSync("sha256", master, Buffer.alloc(0), "paylink/webhook-secrets/v1", 32));
  // The id reveals nothing useful about the key: a truncated hash under another label.
  const id = createHash("sha256").update("paylink/secret-key-id/v1").update(master).digest("hex").slice(0, 8);
  return { id, key };
}

/**
 * The keyring of this process, from the configuration: PAYLINK_SECRET_KEY (+ previous keys), or on
 * the embedded database a key file in the data directory, created on first use.
 * @throws ConfigError on PostgreSQL without PAYLINK_SECRET_KEY, or for an unreadable key file.
 */
export function resolveSecretKeyring(config: Pick<Config, "secretKey" | "previousSecretKeys" | "databaseUrl" | "dataDir">): {
  keyring: SecretKeyring;
  source: "environment" | "generated-file" | "file";
  file?: string;
} {
  if (config.secretKey) return { keyring: new SecretKeyring(config.secretKey, config.previousSecretKeys), source: "environment" };
  if (config.databaseUrl) {
    throw new ConfigError([
      "PAYLINK_SECRET_KEY must be set when DATABASE_URL is set: webhook API keys and HMAC keys are encrypted with it, " +
        "and every instance sharing the database needs the same key. Generate one with `openssl rand -hex 32` and give it to every instance.",
    ]);
  }
  const file = join(config.dataDir, SECRET_KEY_FILE);
  mkdirSync(config.dataDir, { recursive: true });
  let created = false;
  try {
    // O_EXCL: two processes racing on a fresh directory agree on one key (the loser reads it).
    const fd = openSync(file, "wx", 0o600);
    try {
      writeSync(fd, `${randomBytes(32).toString("hex")}\n`);
    } finally {
      closeSync(fd);
    }
    created = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new ConfigError([`cannot create the secret key file ${file}: ${(error as Error).message}`]);
    }
  }
  const text = readFileSync(file, "utf8").trim();
  if (!HEX_KEY.test(text)) {
    throw new ConfigError([
      `${file} must hold 64 hexadecimal characters (the key that encrypts webhook secrets); restore it from a backup or set PAYLINK_SECRET_KEY`,
    ]);
  }
  if (!created && (statSync(file).mode & 0o077) !== 0) {
    // Not fatal: the operator may have reasons; but say it.
    process.emitWarning(`${file} is readable by other users; run chmod 600 on it`);
  }
  return { keyring: new SecretKeyring(text, config.previousSecretKeys), source: created ? "generated-file" : "file", file };
}

/**
 * Start-up check: every stored secret (webhook keys, two-factor secrets, terminals' processor
 * secrets) must be decryptable with the configured keys, or the process refuses to start (a wrong
 * PAYLINK_SECRET_KEY would otherwise surface only as webhooks that silently stop). Values under a
 * previous key are re-encrypted under the current one. Returns how many rows were re-encrypted.
 */
export async function checkStoredSecrets(db: Database, keyring: SecretKeyring): Promise<number> {
  const sealed = SEALED_COLUMNS.map(
    ({ table, column }) => sql`SELECT ${sql.ref(column)} AS k FROM ${sql.table(table)} WHERE ${sql.ref(column)} IS NOT NULL`,
  );
  const { rows } = await sql<{ key_id: string | null; count: number }>`
    SELECT split_part(k, '.', 2) AS key_id, count(*)::int AS count
    FROM (${sql.join(sealed, sql` UNION ALL `)}) AS stored
    GROUP BY 1
  `.execute(db);
  const unknown = rows.filter((row) => !row.key_id || !keyring.knows(row.key_id));
  if (unknown.length > 0) {
    throw new ConfigError([
      `secrets in the database were encrypted with key id(s) ${unknown.map((row) => row.key_id || "(none)").join(", ")}, ` +
        `but the configured key has id ${keyring.currentKeyId}. Set PAYLINK_SECRET_KEY to the key these instances used ` +
        `(add the new key as PAYLINK_SECRET_KEY and the old one in PAYLINK_SECRET_KEY_PREVIOUS to rotate).`,
    ]);
  }
  if (rows.every((row) => row.key_id === keyring.currentKeyId)) return 0;
  return db.transaction().execute(async (trx) => {
    const changedRows = new Set<string>();
    for (const { table, id, column, context } of SEALED_COLUMNS) {
      const stored = await sql<{ id: string; sealed: string }>`
        SELECT ${sql.ref(id)} AS id, ${sql.ref(column)} AS sealed FROM ${sql.table(table)}
        WHERE ${sql.ref(column)} IS NOT NULL FOR UPDATE`.execute(trx);
      for (const row of stored.rows) {
        if (keyring.isCurrent(row.sealed)) continue;
        const resealed = keyring.encrypt(keyring.decrypt(row.sealed, context(row.id)), context(row.id));
        await sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = ${resealed} WHERE ${sql.ref(id)} = ${row.id}`.execute(trx);
        changedRows.add(`${table}:${row.id}`);
      }
    }
    return changedRows.size;
  });
}

export const apiKeyContext = (endpointId: string) => `webhook_endpoints:${endpointId}:api_key`;
export const hmacKeyContext = (endpointId: string) => `webhook_endpoints:${endpointId}:hmac_key`;
export const totpSecretContext = (userId: string) => `portal_users:${userId}:totp_secret`;
export const terminalProcessorContext = (terminalIdentifier: string) => `terminals:${terminalIdentifier}:processor_secrets`;

/**
 * Every column sealed under the keyring: its table, the column naming the row, and the context it
 * was sealed with. The start-up check and the re-encryption read this list, so a new sealed
 * column is added here once.
 */
const SEALED_COLUMNS: ReadonlyArray<{ table: string; id: string; column: string; context: (id: string) => string }> = [
  { table: "webhook_endpoints", id: "id", column: "api_key", context: apiKeyContext },
  { table: "webhook_endpoints", id: "id", column: "hmac_key", context: hmacKeyContext },
  { table: "portal_users", id: "id", column: "totp_secret_sealed", context: totpSecretContext },
  { table: "terminals", id: "terminal_identifier", column: "processor_secrets", context: terminalProcessorContext },
];
