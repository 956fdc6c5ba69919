// "Your webhook endpoint is failing": once an endpoint's deliveries have been failing for an hour,
// every user of its merchant who may manage endpoints (owners, admins, developers) gets one e-mail, and no other until the endpoint has recovered and
// fails again (one per failing spell, not one per delivery). Run by the mail worker once a minute.
import type { Database } from "../db/connect.ts";
import { endRecoveredSpells, findUntoldFailingEndpoints, recordAlertAndQueueMail } from "../db/webhook-alerts-repository.ts";
import type { Lang } from "../web/i18n.ts";
import { endpointFailingMail } from "./templates/endpoint-failing.tsx";

/** How long deliveries must have been failing before the merchant is told. */
export const FAILING_ALERT_AFTER_MS = 60 * 60 * 1000;

/** Ends recovered spells, then tells of the new ones; returns how many messages were queued. */
export async function alertFailingEndpoints(db: Database, now: Date, publicBaseUrl: string | null): Promise<number> {
  await endRecoveredSpells(db);
  const failing = await findUntoldFailingEndpoints(db, new Date(now.getTime() - FAILING_ALERT_AFTER_MS));
  let queued = 0;
  for (const endpoint of failing) {
    const render = (language: Lang) => ({
      kind: "endpoint-failing" as const,
      merchantId: endpoint.merchantId,
      ...endpointFailingMail(language, {
        url: endpoint.url,
        failingSince: endpoint.failingSince,
        waiting: endpoint.waiting,
        portalUrl: publicBaseUrl && `${publicBaseUrl}/portal/developers/webhooks/${encodeURIComponent(endpoint.endpointId)}`,
      }),
    });
    queued += await recordAlertAndQueueMail(db, endpoint, { is: render("is"), en: render("en") }, now);
  }
  return queued;
}
