// Which processor takes a terminal's money (docs/processors.md): read from the terminal's
// configuration each time it is needed, so a change made on one instance holds on all at once.
import type { Database } from "../db/connect.ts";
import { loadTerminalProcessor } from "../db/terminal-processors-repository.ts";
import type { HostedPaymentProcessor } from "../payments/hosted.ts";
import type { ProcessorConfig } from "../payments/processor-config.ts";
import { StraumurProcessor } from "../payments/straumur.ts";
import type { SecretKeyring } from "../security/keyring.ts";

export interface ProcessorDirectory {
  /** The real processor of a terminal; rejects for a sandbox terminal (it has the card form) or an unknown one. */
  hostedFor(terminalIdentifier: string): Promise<HostedPaymentProcessor>;
}

export class ProcessorNotConfigured extends Error {
  override readonly name = "ProcessorNotConfigured";
}

export function processorDirectory(deps: { db: Database; keyring: SecretKeyring }): ProcessorDirectory {
  return {
    async hostedFor(terminalIdentifier) {
      const config = await loadTerminalProcessor(deps.db, deps.keyring, terminalIdentifier);
      if (!config) throw new ProcessorNotConfigured(`no terminal ${terminalIdentifier}`);
      return hostedProcessorOf(config, terminalIdentifier);
    },
  };
}

/** The adapter of one configuration. */
export function hostedProcessorOf(config: ProcessorConfig, terminalIdentifier: string): HostedPaymentProcessor {
  switch (config.type) {
    case "straumur":
      return new StraumurProcessor(config);
    case "sandbox":
    case "adyen":
    case "stripe":
      throw new ProcessorNotConfigured(`terminal ${terminalIdentifier} has no hosted-payment adapter for ${config.type}`);
  }
}
