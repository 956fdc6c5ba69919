// A terminal's processor configuration (docs/processors.md): the type and non-secret settings in
// clear, the secrets as one JSON object encrypted under the keyring (bound to the terminal's row,
// so it cannot be copied to another terminal); they leave this module in clear only in memory.

import { processorConfigFrom } from "../domain/processors/processor-settings.ts";
import { type ProcessorConfig, type ProcessorView, processorView, SECRET_FIELDS } from "../payments/processor-config.ts";
import { type SecretKeyring, terminalProcessorContext } from "../security/keyring.ts";
import type { Database } from "./connect.ts";

/**
 * Replaces a terminal's configuration (pass a transaction to make it part of a larger change);
 * false when the merchant has no such terminal.
 */
export async function saveTerminalProcessor(
  db: Database,
  keyring: SecretKeyring,
  merchantId: string,
  terminalIdentifier: string,
  config: ProcessorConfig,
): Promise<boolean> {
  const secretNames: readonly string[] = SECRET_FIELDS[config.type];
  const settings: Record<string, unknown> = {};
  const secrets: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(config)) {
    if (name === "type") continue;
    (secretNames.includes(name) ? secrets : settings)[name] = value;
  }
  const sandbox = config.type === "sandbox";
  const result = await db
    .updateTable("terminals")
    .set({
      processor_type: config.type,
      processor_settings: sandbox ? null : JSON.stringify(settings),
      processor_secrets: sandbox ? null : keyring.encrypt(JSON.stringify(secrets), terminalProcessorContext(terminalIdentifier)),
    })
    .where("terminal_identifier", "=", terminalIdentifier)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * The terminal's configuration with its secrets in clear, for a call to its processor; `{ type:
 * "sandbox" }` for a sandbox terminal, undefined when there is no such terminal.
 * @throws SecretDecryptionError when the secrets do not decrypt under the keyring; Error when the
 * stored configuration no longer passes the rules it was saved under.
 */
export async function loadTerminalProcessor(
  db: Database,
  keyring: SecretKeyring,
  terminalIdentifier: string,
): Promise<ProcessorConfig | undefined> {
  const row = await db
    .selectFrom("terminals")
    .select(["terminal_identifier", "processor_type", "processor_settings", "processor_secrets"])
    .where("terminal_identifier", "=", terminalIdentifier)
    .executeTakeFirst();
  return row && storedConfig(keyring, row);
}

/** Each of the merchant's terminals' configuration as it may be shown: secrets masked. */
export async function terminalProcessorViews(
  db: Database,
  keyring: SecretKeyring,
  merchantId: string,
): Promise<Map<string, ProcessorView>> {
  const rows = await db
    .selectFrom("terminals")
    .select(["terminal_identifier", "processor_type", "processor_settings", "processor_secrets"])
    .where("merchant_id", "=", merchantId)
    .execute();
  return new Map(rows.map((row) => [row.terminal_identifier, processorView(storedConfig(keyring, row))]));
}

/** The processor type of the terminal a link or session belongs to ("sandbox" when there is none). */
export async function processorTypeOfLink(db: Database, linkReference: string): Promise<string> {
  const row = await db
    .selectFrom("payment_links as l")
    .innerJoin("terminals as t", "t.terminal_identifier", "l.terminal_identifier")
    .select("t.processor_type")
    .where("l.reference", "=", linkReference)
    .executeTakeFirst();
  return row?.processor_type ?? "sandbox";
}

interface StoredProcessor {
  terminal_identifier: string;
  processor_type: string;
  processor_settings: unknown;
  processor_secrets: string | null;
}

/**
 * A stored row read back through the rules the admin API applied when it was saved, so what
 * Paylink hands to a processor is always typed and checked. baseUrl is allowed here: the operator's
 * setting decides what may be saved, not whether a saved terminal keeps working.
 */
function storedConfig(keyring: SecretKeyring, row: StoredProcessor): ProcessorConfig {
  if (row.processor_type === "sandbox") return { type: "sandbox" };
  const settings = typeof row.processor_settings === "string" ? JSON.parse(row.processor_settings) : row.processor_settings;
  const secrets =
    row.processor_secrets === null
      ? {}
      : JSON.parse(keyring.decrypt(row.processor_secrets, terminalProcessorContext(row.terminal_identifier)));
  try {
    return processorConfigFrom({ ...settings, ...secrets, type: row.processor_type }, { allowBaseUrl: true });
  } catch (error) {
    // The message names a field, never its value; the cause stays attached for the log.
    throw new Error(`terminal ${row.terminal_identifier}'s stored processor configuration is not valid`, { cause: error });
  }
}
