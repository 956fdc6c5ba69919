// Two processes writing one PGlite data directory would corrupt it: PGlite has no postmaster
// to refuse the second one. This lock file does. It holds the owner's PID; a lock whose process
// is gone (after kill -9 or a crash) is taken over, so a restart never needs a manual clean-up.
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `The embedded database in ${dataDir} is already in use by another Paylink process (PID ${pid}). ` +
        `Stop that process, use another PAYLINK_DATA_DIR, or set DATABASE_URL to run several instances on PostgreSQL.`,
    );
    this.name = "DataDirInUseError";
  }
}

export interface DataDirLock {
  release(): void;
}

export function lockDataDir(dataDir: string): DataDirLock {
  // Owner only: PGlite writes its files world-readable (0666 under the usual umask), and they hold
  // shopper details, card tokens and the form-token key. A closed directory keeps others out.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  const path = join(dataDir, "paylink.lock");
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return { release: () => rmSync(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number(readFileSafely(path));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new DataDirInUseError(dataDir, owner);
      }
      rmSync(path, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`Could not lock the embedded database directory ${dataDir}`);
}

function readFileSafely(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
