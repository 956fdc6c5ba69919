#!/usr/bin/env node
// The `paylink` command. The server runs its TypeScript through tsx, so there is no build step
// between a clone and a running service.
import { register } from "tsx/esm/api";

register();
const { runCli } = await import("../src/cli/main.ts");
process.exitCode = await runCli(process.argv.slice(2));
