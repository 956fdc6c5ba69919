// `paylink <command>`: serve, migrate, worker, mail, sign, verify (docs/cli.md).
import { ConfigError, loadConfig } from "../config.ts";
import { DataDirInUseError } from "../db/data-dir-lock.ts";

const USAGE = `Usage: paylink <command>

Commands:
  serve               start the server (configuration from environment variables, see README)
  migrate             apply database migrations and exit
  worker              deliver webhooks and e-mail only (PostgreSQL; run serve with PAYLINK_WEBHOOK_WORKER=false beside it)
  mail [--limit N] [--show ID]
                      list the latest e-mails (newest first, default 20), or print one's text
  sign --key HEX      read a webhook message (JSON) on stdin, print its hmacSignature
  verify --key HEX    read a webhook message with hmacSignature on stdin; exit 0 valid, 1 invalid, 2 bad input
`;

export async function runCli(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case "serve": {
        const { runServer } = await import("../main.ts");
        return await runServer();
      }
      case "worker": {
        const { runWorker } = await import("../webhooks/worker-process.ts");
        return await runWorker();
      }
      case "migrate": {
        const config = loadConfig();
        const { openDatabase } = await import("../db/connect.ts");
        const { migrate } = await import("../db/migrate.ts");
        const handle = await openDatabase(
          config.databaseUrl ? { kind: "postgres", url: config.databaseUrl } : { kind: "pglite", dataDir: config.dataDir },
          { migrate: false },
        );
        try {
          const applied = await migrate(handle.db);
          process.stdout.write(applied.length ? `Applied ${applied.join(", ")}\n` : "Database is up to date.\n");
        } finally {
          await handle.close();
        }
        return 0;
      }
      case "mail": {
        const { runMailCommand } = await import("./mail.ts");
        const result = await runMailCommand(rest);
        process.stdout.write(result.stdout);
        process.stderr.write(result.stderr);
        return result.exitCode;
      }
      case "sign":
      case "verify": {
        const { runSignatureCli } = await import("paylink-sdk");
        const stdin = await readStdin();
        const result = runSignatureCli(args, stdin, { programName: "paylink" });
        process.stdout.write(result.stdout);
        process.stderr.write(result.stderr);
        return result.exitCode;
      }
      case undefined:
      case "help":
      case "--help":
      case "-h":
        process.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
        void rest;
        return 2;
    }
  } catch (error) {
    if (error instanceof ConfigError || error instanceof DataDirInUseError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return "";
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
