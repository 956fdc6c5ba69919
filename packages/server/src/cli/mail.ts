// `paylink mail`: the latest e-mails in the outbox, for the operator (above all without SMTP_URL,
// when mail is kept, not sent). `--show ID` prints one message's text; a one-time link in it is
// only ever its placeholder.
import { loadConfig } from "../config.ts";
import { openDatabase } from "../db/connect.ts";
import { findMailText, listLatestMail, type MailListEntry } from "../db/mail-outbox-repository.ts";

export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const USAGE = "Usage: paylink mail [--limit N] [--show ID]\n";

export async function runMailCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CommandResult> {
  let limit = 20;
  let show: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = args[i + 1];
    if (arg === "--limit" && value !== undefined && /^\d{1,4}$/.test(value) && Number(value) >= 1) {
      limit = Number(value);
      i++;
    } else if (arg === "--show" && value !== undefined) {
      show = value;
      i++;
    } else {
      return { stdout: "", stderr: `Unknown or incomplete option "${arg}".\n${USAGE}`, exitCode: 2 };
    }
  }
  const config = loadConfig(env);
  const handle = await openDatabase(
    config.databaseUrl ? { kind: "postgres", url: config.databaseUrl } : { kind: "pglite", dataDir: config.dataDir },
  );
  try {
    if (show !== undefined) {
      const mail = await findMailText(handle.db, show);
      if (!mail) return { stdout: "", stderr: `No e-mail ${show}.\n`, exitCode: 1 };
      return { stdout: `To: ${mail.recipient}\nSubject: ${mail.subject}\n\n${mail.text}`, stderr: "", exitCode: 0 };
    }
    const entries = await listLatestMail(handle.db, { limit });
    if (entries.length === 0) return { stdout: "No e-mail yet.\n", stderr: "", exitCode: 0 };
    return { stdout: `${entries.map(describe).join("\n")}\n`, stderr: "", exitCode: 0 };
  } finally {
    await handle.close();
  }
}

function describe(mail: MailListEntry): string {
  const when = mail.sentAt ?? mail.createdAt;
  const retry =
    mail.status === "pending" && mail.attempts > 0 ? ` (attempt ${mail.attempts} failed, next ${mail.nextAttemptAt.toISOString()})` : "";
  const error = mail.lastError && mail.status !== "sent" ? `\n    last error: ${mail.lastError}` : "";
  return `${when.toISOString()}  ${mail.status.padEnd(7)} ${mail.kind.padEnd(16)} ${mail.language}  ${mail.id}  ${mail.recipient}${retry}\n    ${mail.subject}${error}`;
}
