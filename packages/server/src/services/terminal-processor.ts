// Which processor takes a terminal's money, set by the operator (docs/processors.md#configuring-a-terminal):
// on a new terminal or in place of the current configuration. Each change is one transaction with
// its audit-log entry, which names the type and environment, never a credential.

import type { Database } from "../db/connect.ts";
import { createTerminal, type Terminal } from "../db/merchants-repository.ts";
import { saveTerminalProcessor } from "../db/terminal-processors-repository.ts";
import type { Actor } from "../domain/audit/actor.ts";
import type { AuditEvent } from "../domain/audit/entry.ts";
import { type ProcessorConfig, processorView } from "../payments/processor-config.ts";
import type { SecretKeyring } from "../security/keyring.ts";
import { changeAndRecord } from "./audit.ts";

export interface TerminalProcessorDeps {
  db: Database;
  keyring: SecretKeyring;
}

/** Who asks, for which merchant's terminal. */
export interface TerminalRequest {
  merchantId: string;
  actor: Actor;
}

/** A new terminal with its processor, both or neither; a real processor's configuration is recorded. */
export function addTerminal(
  deps: TerminalProcessorDeps,
  { merchantId, actor }: TerminalRequest,
  input: { name: string; currencies: string[] | null; processor: ProcessorConfig },
): Promise<Terminal> {
  return changeAndRecord(
    deps.db,
    async (trx) => {
      const terminal = await createTerminal(trx, merchantId, input.name, input.currencies);
      if (input.processor.type !== "sandbox")
        await saveTerminalProcessor(trx, deps.keyring, merchantId, terminal.terminalIdentifier, input.processor);
      return terminal;
    },
    // The sandbox is every terminal's default: a new sandbox terminal changes no processor.
    (terminal) =>
      input.processor.type === "sandbox" ? undefined : processorChanged(merchantId, actor, terminal.terminalIdentifier, input.processor),
  );
}

/** Replaces the terminal's configuration, secrets included; false when the merchant has no such terminal. */
export function setTerminalProcessor(
  deps: TerminalProcessorDeps,
  { merchantId, actor }: TerminalRequest,
  terminalIdentifier: string,
  processor: ProcessorConfig,
): Promise<boolean> {
  return changeAndRecord(
    deps.db,
    (trx) => saveTerminalProcessor(trx, deps.keyring, merchantId, terminalIdentifier, processor),
    (found) => (found ? processorChanged(merchantId, actor, terminalIdentifier, processor) : undefined),
  );
}

function processorChanged(merchantId: string, actor: Actor, terminalIdentifier: string, processor: ProcessorConfig): AuditEvent {
  const view = processorView(processor);
  return {
    merchantId,
    actor,
    action: "terminal.processor-change",
    object: { type: "terminal", id: terminalIdentifier },
    details: { type: view.type, ...("environment" in view ? { environment: view.environment } : {}) },
  };
}
