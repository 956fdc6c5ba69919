// A portal user's e-mail settings (docs/portal.md#notifications): the "you got paid" opt-in and
// the language of the mail the user gets.
import type { Database } from "./connect.ts";

export interface NotificationSettings {
  notifyPayments: boolean;
  mailLanguage: "is" | "en";
}

export async function findNotificationSettings(db: Database, userId: string): Promise<NotificationSettings | undefined> {
  const row = await db.selectFrom("portal_users").select(["notify_payments", "mail_language"]).where("id", "=", userId).executeTakeFirst();
  return row && { notifyPayments: row.notify_payments, mailLanguage: row.mail_language === "is" ? "is" : "en" };
}

/** Only the user's own row: the caller passes the signed-in user's id and merchant. */
export async function saveNotificationSettings(
  db: Database,
  user: { userId: string; merchantId: string },
  settings: NotificationSettings,
): Promise<void> {
  await db
    .updateTable("portal_users")
    .set({ notify_payments: settings.notifyPayments, mail_language: settings.mailLanguage })
    .where("id", "=", user.userId)
    .where("merchant_id", "=", user.merchantId)
    .execute();
}
