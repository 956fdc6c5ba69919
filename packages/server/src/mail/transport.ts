// The SMTP client: nodemailer, from SMTP_URL (smtp://user:pass@host:587 upgrades with STARTTLS
// when the server offers it; smtps:// is TLS from the first byte) and MAIL_FROM.
import nodemailer from "nodemailer";
import { isPermanentSmtpFailure } from "../domain/mail/retry.ts";

export interface OutgoingMail {
  to: string;
  subject: string;
  html: string;
  text: string;
  language: string;
  /** Our id: the Message-ID's left part, so a message sent twice after a lost reply is recognisable. */
  id: string;
}

export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** Why a send failed, safe to store and log (no credentials), and whether to try again. */
export class MailSendError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = "MailSendError";
  }
}

export function smtpTransport(smtpUrl: string, from: string): MailTransport {
  const transporter = nodemailer.createTransport({
    url: smtpUrl,
    // A silent server must not hold a worker's lease: give up on an attempt well before it ends.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  const domain = from.match(/@([^>\s]+)/)?.[1] ?? "paylink.invalid";
  return {
    async send(mail) {
      try {
        await transporter.sendMail({
          from,
          to: mail.to,
          subject: mail.subject,
          html: mail.html,
          text: mail.text,
          messageId: `<${mail.id}@${domain}>`,
          headers: { "Content-Language": mail.language },
        });
      } catch (error) {
        const { responseCode, code } = error as { responseCode?: number; code?: string };
        // EENVELOPE: an address nodemailer cannot send to at all; no later attempt can do better.
        throw new MailSendError(describeFailure(error), isPermanentSmtpFailure(responseCode) || code === "EENVELOPE");
      }
    },
    close() {
      transporter.close();
    },
  };
}

/** The server's answer or the connection's error, never the URL (it may hold a password). */
function describeFailure(error: unknown): string {
  const { code, response, message } = error as { code?: string; response?: string; message?: string };
  const text = response ?? message ?? String(error);
  return `${code ? `${code}: ` : ""}${text}`.replace(/smtps?:\/\/[^\s]*/gi, "smtp://…").slice(0, 500);
}
