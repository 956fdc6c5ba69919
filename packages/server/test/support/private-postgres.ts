// A PostgreSQL server of the test's own (initdb into a temporary directory, pg_ctl on a free port),
// for a fault that stops and starts the server itself: the shared server other tests use is never
// stopped. PostgreSQL refuses to run as root, so as root the commands run as the `postgres` user.
// Undefined when the machine has no initdb/pg_ctl on its PATH (or no such user as root).
import { execFile } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./process.ts";

const run = promisify(execFile);

export interface PrivatePostgres {
  /** Superuser URL of its `postgres` database. */
  url: string;
  /** pg_ctl stop -m fast: sessions are ended (57P01) and new connections refused until start. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres | undefined> {
  const root = process.getuid?.() === 0;
  let owner: { uid: number; gid: number } | undefined;
  try {
    await run("initdb", ["--version"]);
    if (root) {
      const [uid, gid] = await Promise.all([run("id", ["-u", "postgres"]), run("id", ["-g", "postgres"])]);
      owner = { uid: Number(uid.stdout), gid: Number(gid.stdout) };
    }
  } catch {
    return undefined;
  }
  const as = (command: string, args: string[]) => (root ? run("runuser", ["-u", "postgres", "--", command, ...args]) : run(command, args));
  const dir = mkdtempSync(join(tmpdir(), "paylink-private-pg-"));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, "data");
  const port = await freePort();
  // No fsync and a small footprint: a throwaway server on a shared machine.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c shared_buffers=32MB -c max_connections=100`;
  const start = async () => void (await as("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "30", "start"]));
  try {
    await as("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-N", "-E", "UTF8", "--locale=C"]);
    await start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop: async () => void (await as("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"])),
    destroy: async () => {
      await as("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
