// A terminal's processor configuration (docs/processors.md): the type and non-secret settings in
// clear, the secrets encrypted under the keyring; they leave this module in clear only in memory.

import { isProcessorType, type ProcessorConfig, SECRET_FIELDS } from "../payments/processor-config.ts";
import type { SecretKeyring } from "../security/keyring.ts";
import type { Database } from "./connect.ts";

export const terminalProcessorContext = (terminalIdentifier: string) => `terminals:${terminalIdentifier}:processor_secrets`;

/** Replaces a terminal's configuration; false when the merchant has no such terminal. */
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

/** The terminal's configuration with its secrets in clear; undefined when there is no such terminal. */
export async function loadTerminalProcessor(
  db: Database,
  keyring: SecretKeyring,
  terminalIdentifier: string,
): Promise<ProcessorConfig | undefined> {
  const row = await db
    .selectFrom("terminals")
    .select(["processor_type", "processor_settings", "processor_secrets"])
    .where("terminal_identifier", "=", terminalIdentifier)
    .executeTakeFirst();
  if (!row) return undefined;
  if (!isProcessorType(row.processor_type) || row.processor_type === "sandbox" || row.processor_secrets === null)
    return { type: "sandbox" };
  const settings = typeof row.processor_settings === "string" ? JSON.parse(row.processor_settings) : row.processor_settings;
  const secrets = JSON.parse(keyring.decrypt(row.processor_secrets, terminalProcessorContext(terminalIdentifier)));
  return { ...settings, ...secrets, type: row.processor_type };
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
