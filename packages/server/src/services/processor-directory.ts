// Which processor takes a terminal's money (docs/processors.md): read from the terminal's
// configuration each time it is needed, so a change made on one instance holds on all at once.
import type { Database } from "../db/connect.ts";
import { loadTerminalProcessor } from "../db/terminal-processors-repository.ts";
import { AdyenProcessor } from "../payments/adyen.ts";
import type { HostedPaymentProcessor } from "../payments/hosted.ts";
import type { AfterSaleProcessor } from "../payments/processor.ts";
import type { ProcessorConfig } from "../payments/processor-config.ts";
import { StraumurProcessor } from "../payments/straumur.ts";
import { StripeProcessor } from "../payments/stripe.ts";
import type { SecretKeyring } from "../security/keyring.ts";

export interface ProcessorDirectory {
  /** The real processor of a terminal; rejects for a sandbox terminal (it has the card form) or an unknown one. */
  hostedFor(terminalIdentifier: string): Promise<HostedPaymentProcessor>;
  /**
   * Who makes a terminal's token charges, refunds, reversals and captures: `sandbox` for a sandbox
   * terminal, the adapter of its real processor otherwise (never the sandbox, which moves no real money).
   */
  afterSaleFor(terminalIdentifier: string, sandbox: AfterSaleProcessor): Promise<AfterSaleProcessor>;
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
    async afterSaleFor(terminalIdentifier, sandbox) {
      const config = await loadTerminalProcessor(deps.db, deps.keyring, terminalIdentifier);
      return !config || config.type === "sandbox" ? sandbox : hostedProcessorOf(config, terminalIdentifier);
    },
  };
}

/** The adapter of one configuration. */
export function hostedProcessorOf(config: ProcessorConfig, terminalIdentifier: string): HostedPaymentProcessor & AfterSaleProcessor {
  switch (config.type) {
    case "straumur":
      return new StraumurProcessor(config);
    case "stripe":
      return new StripeProcessor(config);
    case "adyen":
      return new AdyenProcessor(config);
    case "sandbox":
      throw new ProcessorNotConfigured(`terminal ${terminalIdentifier} has no hosted-payment adapter for ${config.type}`);
  }
}
