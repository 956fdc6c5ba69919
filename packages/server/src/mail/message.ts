// What a queued e-mail is (docs/operations.md#e-mail): rendered before it is queued, so the
// worker only sends, and a message reads the same whenever it leaves.
import type { Lang } from "../web/i18n.ts";

export const MAIL_KINDS = ["receipt", "refund", "paid", "endpoint-failing", "password-reset", "invitation"] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/** Subject, HTML and its plain-text twin, in one language. */
export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}

export interface MailMessage extends RenderedMail {
  recipient: string;
  language: Lang;
  kind: MailKind;
  merchantId: string | null;
  /** The payment a receipt or refund notice is about. */
  checkoutReference?: string | null;
}

/**
 * Where a one-time link (password reset, invitation) stands in a message's bodies while it waits
 * to be sent: the link itself is sealed in its own column and put in only by the worker, so no
 * copy of the body, listing or log ever holds it. Letters only: nothing the HTML escapes.
 */
export const ONE_TIME_LINK_PLACEHOLDER = "PAYLINKONETIMELINK";
