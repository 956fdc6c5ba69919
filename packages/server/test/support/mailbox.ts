// A real SMTP peer for the mail tests: smtp-server on loopback (no TLS, no login), every message
// parsed with mailparser and kept in arrival order. close() takes it down: "SMTP is down".
import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string;
  subject: string;
  html: string;
  text: string;
  language: string | undefined;
  parsed: ParsedMail;
}

export interface Mailbox {
  /** smtp://127.0.0.1:port */
  url: string;
  port: number;
  messages: ReceivedMail[];
  /** Waits until at least `count` messages have arrived (or fails after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** `refuses`: recipients answered 550 (no such mailbox), as a server refuses a message for good. */
export async function startMailbox(port = 0, options: { refuses?: (address: string) => boolean } = {}): Promise<Mailbox> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (options.refuses?.(address.address)) {
        const error = Object.assign(new Error("5.1.1 No such mailbox"), { responseCode: 550 });
        return callback(error);
      }
      callback();
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const to = Array.isArray(parsed.to) ? parsed.to[0]?.text : parsed.to?.text;
          messages.push({
            to: to ?? "",
            subject: parsed.subject ?? "",
            html: typeof parsed.html === "string" ? parsed.html : "",
            text: parsed.text ?? "",
            language: parsed.headers.get("content-language") as string | undefined,
            parsed,
          });
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actualPort = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${actualPort}`,
    port: actualPort,
    messages,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} e-mails, got ${messages.length}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
