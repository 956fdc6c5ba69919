// What the portal's pages need from the process (passed in by buildApp, never read from a global),
// and what they share once the plugin has started.
import type { Database } from "../db/connect.ts";
import type { AfterSaleProcessor } from "../payments/processor.ts";
import type { SecretKeyring } from "../security/keyring.ts";
import type { ProcessorDirectory } from "../services/processor-directory.ts";

export interface PortalDeps {
  db: Database;
  /** Read on every request: a test server learns its port after the app is built. */
  readonly publicBaseUrl: string;
  now: () => Date;
  /** Encrypts and decrypts webhook endpoint secrets. */
  keyring: SecretKeyring;
  /** Refunds and reversals from the payment page go through the API's services to this processor. */
  processor: AfterSaleProcessor;
  /** A terminal's real processor, which modifies the payments it took instead. */
  processors: ProcessorDirectory;
  /** PAYLINK_WEBHOOK_ALLOW_PRIVATE: webhook URLs and logo downloads may reach private addresses. */
  allowPrivateTargets: boolean;
  /** A session unused this long is over (docs/portal.md#sessions); tests shorten it. */
  sessionIdleSeconds?: number;
}

export interface PortalContext {
  deps: PortalDeps;
  /** Signs the sign-in form's token (before there is a session); shared through the database. */
  signInKey: Buffer;
}

/** Defaults of docs/portal.md#sessions. */
export const SESSION_IDLE_SECONDS = 30 * 60;
export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;
