#!/usr/bin/env node
// The `paylink` command: runs the compiled server in ../dist (`npm run build` in the repository
// root makes it). Development and the tests run the TypeScript itself through paylink-dev.mjs.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    `paylink: the server is not built (${fileURLToPath(entry)} is missing).\n` +
      "Run `npm run build` in the repository root first (`npm start` builds and starts).\n",
  );
  process.exit(1);
}
const { runCli } = await import(entry.href);
process.exitCode = await runCli(process.argv.slice(2));
