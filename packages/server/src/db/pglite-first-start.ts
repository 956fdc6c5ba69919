// The embedded database's first start runs in a child process of its own. PGlite creates a new
// data directory (initdb) with a second PostgreSQL instance and the initdb program, each a
// WebAssembly module with its own memory, and the process keeps that memory after both close:
// a first start left Paylink at about 840 MB resident for good, where a start on an existing
// directory holds about 230 MB (docs/decisions.md#two-databases-one-sql). In a child, initdb's memory ends with the child.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

/** Creates the PostgreSQL files in `dataDir` (unless they exist) in a short-lived child process. */
export async function initializeDataDirApart(dataDir: string): Promise<void> {
  const directory = resolve(dataDir);
  // PGlite's own test for "is there a database here" (it runs initdb otherwise).
  if (existsSync(join(directory, "PG_VERSION"))) return;
  // Plain JavaScript given on the command line: the child needs no loader, in development (tsx)
  // as in the built server, and imports the same PGlite as this process.
  const pglite = import.meta.resolve("@electric-sql/pglite");
  const program = `const { PGlite } = await import(${JSON.stringify(pglite)});
const db = await PGlite.create(${JSON.stringify(directory)});
await db.close();`;
  await new Promise<void>((done, fail) => {
    const child = spawn(process.execPath, ["--input-type=module", "--eval", program], { stdio: ["ignore", "ignore", "pipe"] });
    let errors = "";
    child.stderr.on("data", (chunk: Buffer) => {
      errors = (errors + chunk.toString("utf8")).slice(-4000);
    });
    child.once("error", fail);
    child.once("exit", (code, signal) => {
      if (code === 0) done();
      else fail(new Error(`Creating the embedded database in ${directory} failed (${signal ?? `exit code ${code}`}): ${errors.trim()}`));
    });
  });
}
