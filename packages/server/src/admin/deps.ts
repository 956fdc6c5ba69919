import type { Database } from "../db/connect.ts";
import type { SecretKeyring } from "../security/keyring.ts";

/** What the admin operations need from the process: passed in by buildApp, never read from a global. */
export interface AdminDeps {
  db: Database;
  adminToken: string;
  /** Encrypts and decrypts webhook endpoint secrets and terminals' processor credentials. */
  keyring: SecretKeyring;
  /** PAYLINK_WEBHOOK_ALLOW_PRIVATE: webhook URLs and logo downloads may target private addresses and plain http://. */
  allowPrivateTargets: boolean;
  /** PUBLIC_BASE_URL, for the processor webhook address each terminal shows. */
  readonly publicBaseUrl: string;
  /** PAYLINK_PROCESSOR_BASE_URLS=allow: a terminal's processor may name its own API base (`baseUrl`). */
  allowProcessorBaseUrls: boolean;
}
