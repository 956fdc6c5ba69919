// `npm run faults`: the fault matrix of fault-run.ts against TEST_DATABASE_URL (or DATABASE_URL), a
// PostgreSQL server on which it may create and drop a database of its own. Prints the summary and
// exits 1 when a check failed.
import { runFaults } from "./fault-run.ts";

const adminUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
if (!adminUrl) {
  process.stderr.write("Set TEST_DATABASE_URL to a PostgreSQL server (e.g. postgres://postgres@127.0.0.1:5432/test).\n");
  process.exit(2);
}
const outageSeconds = Number(process.env.FAULT_OUTAGE_SECONDS ?? 4);
const result = await runFaults({ adminUrl, outageMs: outageSeconds * 1000, log: (line) => process.stdout.write(`${line}\n`) });
process.stdout.write(`\n${result.summary}\n`);
process.exit(result.ok ? 0 : 1);
