// The "endpoint failing" alert's bookkeeping (mail/endpoint-alerts.ts): which endpoints have been
// failing long enough, and one row per failing spell so each spell is told once, by whichever
// instance gets there first.
import { sql } from "kysely";
import { rolesThatMay } from "../domain/portal/roles.ts";
import type { MailMessage } from "../mail/message.ts";
import type { Lang } from "../web/i18n.ts";
import type { Database } from "./connect.ts";

export interface FailingEndpoint {
  endpointId: string;
  merchantId: string;
  url: string;
  failingSince: Date;
  waiting: number;
}

/**
 * Ends the spells of endpoints with no failed delivery waiting any more (they recovered, or their
 * deliveries were given up on and nothing new failed), so their next failure is told again.
 */
export async function endRecoveredSpells(db: Database): Promise<number> {
  const result = await sql`DELETE FROM webhook_endpoint_alerts a
    WHERE NOT EXISTS (
      SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = a.endpoint_id AND d.state = 'pending' AND d.attempt_count > 0
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Enabled endpoints whose oldest delivery still waiting after a failed attempt was made at or
 * before `failingSinceAtMost`, and not yet told of. "Failing since" is read as the portal's
 * endpoint health reads it (db/webhook-health-repository.ts).
 */
export async function findUntoldFailingEndpoints(db: Database, failingSinceAtMost: Date): Promise<FailingEndpoint[]> {
  const { rows } = await sql<{ id: string; merchant_id: string; url: string; failing_since: Date; waiting: string }>`
    SELECT e.id, e.merchant_id, e.url, r.failing_since, r.waiting
    FROM webhook_endpoints e
    CROSS JOIN LATERAL (
      SELECT min(d.created_at) AS failing_since, count(*) AS waiting
      FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state = 'pending' AND d.attempt_count > 0
    ) r
    WHERE e.enabled AND r.failing_since <= ${failingSinceAtMost}
      AND NOT EXISTS (SELECT 1 FROM webhook_endpoint_alerts a WHERE a.endpoint_id = e.id)`.execute(db);
  return rows.map((row) => ({
    endpointId: row.id,
    merchantId: row.merchant_id,
    url: row.url,
    failingSince: new Date(row.failing_since),
    waiting: Number(row.waiting),
  }));
}

/**
 * Records the spell's alert and queues its mail to every user of the endpoint's merchant, each in
 * their language, in one statement: when two instances race, one inserts the alert row and the
 * other inserts nothing, mail included. Returns how many messages were queued.
 */
export async function recordAlertAndQueueMail(
  db: Database,
  endpoint: FailingEndpoint,
  byLanguage: Record<Lang, Omit<MailMessage, "recipient" | "language">>,
  now: Date,
): Promise<number> {
  const renders = (["is", "en"] as const).map((language) => ({ language, ...byLanguage[language] }));
  const { rows } = await sql<{ queued: number }>`
    WITH alert AS (
      INSERT INTO webhook_endpoint_alerts (endpoint_id, alerted_at) VALUES (${endpoint.endpointId}, ${now})
      ON CONFLICT (endpoint_id) DO NOTHING RETURNING endpoint_id
    ), mail AS (
      INSERT INTO mail_outbox (merchant_id, recipient, language, kind, subject, html, text)
      SELECT ${endpoint.merchantId}, u.email, u.mail_language, e ->> 'kind', e ->> 'subject', e ->> 'html', e ->> 'text'
      FROM jsonb_array_elements(${JSON.stringify(renders)}::jsonb) AS e
      JOIN portal_users u ON u.merchant_id = ${endpoint.merchantId} AND u.mail_language = e ->> 'language'
        AND u.role IN (${sql.join(rolesThatMay("developers.manage"))})
      WHERE EXISTS (SELECT 1 FROM alert)
      RETURNING id
    )
    SELECT count(*)::int AS queued FROM mail`.execute(db);
  return Number(rows[0]?.queued ?? 0);
}
