// /admin/v1: how an operator provisions merchants. Enabled only with PAYLINK_ADMIN_TOKEN.
// One file per operation; every one is registered here, explicitly.
import type { FastifyInstance } from "fastify";
import { requireJsonContentType } from "../http/content-type.ts";
import { typed } from "../http/typed-app.ts";
import { adminTokenAuth } from "./auth.ts";
import { registerCreateApiKey } from "./create-api-key.ts";
import { registerCreateMerchant } from "./create-merchant.ts";
import { registerCreateTerminal } from "./create-terminal.ts";
import { registerCreateTheme } from "./create-theme.ts";
import { registerCreateUser } from "./create-user.ts";
import { registerCreateWebhook } from "./create-webhook.ts";
import type { AdminDeps } from "./deps.ts";
import { registerEnableWebhook } from "./enable-webhook.ts";
import { registerListApiKeys } from "./list-api-keys.ts";
import { registerListAudit } from "./list-audit.ts";
import { registerListDeliveries } from "./list-deliveries.ts";
import { registerListMail } from "./list-mail.ts";
import { registerListMerchants } from "./list-merchants.ts";
import { registerListTerminals } from "./list-terminals.ts";
import { registerListThemes } from "./list-themes.ts";
import { registerListUsers } from "./list-users.ts";
import { registerListWebhooks } from "./list-webhooks.ts";
import { registerResendDelivery } from "./resend-delivery.ts";
import { registerRevokeApiKey } from "./revoke-api-key.ts";
import { registerRotateWebhookHmacKey } from "./rotate-webhook-hmac-key.ts";
import { registerSetTerminalProcessor } from "./set-terminal-processor.ts";
import { registerUpdateTheme } from "./update-theme.ts";
import { registerUpdateWebhook } from "./update-webhook.ts";

export async function adminRoutes(instance: FastifyInstance, deps: AdminDeps) {
  const app = typed(instance);
  app.addHook("onRequest", adminTokenAuth(deps.adminToken));
  app.addHook("onRequest", requireJsonContentType);
  registerCreateMerchant(app, deps);
  registerListMerchants(app, deps);
  registerCreateTerminal(app, deps);
  registerListTerminals(app, deps);
  registerSetTerminalProcessor(app, deps);
  registerCreateApiKey(app, deps);
  registerRevokeApiKey(app, deps);
  registerListApiKeys(app, deps);
  registerCreateUser(app, deps);
  registerListUsers(app, deps);
  registerCreateTheme(app, deps);
  registerListThemes(app, deps);
  registerUpdateTheme(app, deps);
  registerCreateWebhook(app, deps);
  registerListWebhooks(app, deps);
  registerUpdateWebhook(app, deps);
  registerRotateWebhookHmacKey(app, deps);
  registerEnableWebhook(app, deps);
  registerListDeliveries(app, deps);
  registerResendDelivery(app, deps);
  registerListAudit(app, deps);
  registerListMail(app, deps);
}
