// GET /admin/v1/merchants/{id}/mail: the merchant's e-mail in the outbox, newest first, without
// bodies (docs/admin-api.md#e-mail). Receipts, refund notices and alerts alike.
import { countMerchantMail, listLatestMail, type MailListEntry } from "../db/mail-outbox-repository.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { MailQuery, MerchantParams } from "./schemas.ts";

export function registerListMail(app: TypedApp, deps: AdminDeps) {
  app.get(
    "/merchants/:merchantId/mail",
    {
      schema: {
        tags: ["Admin: e-mail"],
        summary: "The merchant's e-mail, newest first: who, what, and whether it was sent",
        params: MerchantParams,
        querystring: MailQuery,
      },
    },
    async (request) => {
      const { merchantId } = request.params;
      const page = request.query.page ?? 0;
      const pageSize = request.query.pageSize ?? 20;
      await requireMerchant(deps.db, merchantId);
      const [entries, totalCount] = await Promise.all([
        listLatestMail(deps.db, { merchantId, limit: pageSize, offset: page * pageSize }),
        countMerchantMail(deps.db, merchantId),
      ]);
      return { data: entries.map(presentMail), totalCount };
    },
  );
}

function presentMail(mail: MailListEntry) {
  return {
    mailId: mail.id,
    kind: mail.kind,
    recipient: mail.recipient,
    language: mail.language,
    subject: mail.subject,
    status: mail.status,
    attempts: mail.attempts,
    nextAttemptAt: mail.status === "pending" ? mail.nextAttemptAt.toISOString() : null,
    sentAt: mail.sentAt?.toISOString() ?? null,
    lastError: mail.lastError,
    createdAt: mail.createdAt.toISOString(),
  };
}
