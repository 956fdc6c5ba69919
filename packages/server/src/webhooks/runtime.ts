// What the webhook admin routes need from the process configuration: the keyring that encrypts
// endpoint secrets, and whether private webhook targets are allowed. The server (main.ts) and the
// worker command set it once at start; tests set their own. The admin routes are registered by
// the shared admin module, whose deps carry only the database, hence this small registry.
import type { SecretKeyring } from "./secrets.ts";

export interface WebhookRuntime {
  keyring: SecretKeyring;
  /** PAYLINK_WEBHOOK_ALLOW_PRIVATE: private/loopback targets and plain http:// URLs are accepted. */
  allowPrivate: boolean;
}

let current: WebhookRuntime | undefined;

export function configureWebhooks(runtime: WebhookRuntime): void {
  current = runtime;
}

export function webhookRuntime(): WebhookRuntime {
  if (!current) throw new Error("webhooks are not configured: call configureWebhooks() at start");
  return current;
}
