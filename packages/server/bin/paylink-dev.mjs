#!/usr/bin/env node
// `paylink` from the TypeScript sources, through the tsx loader (a dev dependency), with no build:
// what the tests spawn and `npm run dev` runs. paylink-sdk resolves to its sources too (the
// "paylink-source" export condition), so a change to the SDK needs no rebuild either.
import { register } from "node:module";
import { register as registerTsx } from "tsx/esm/api";

register(
  "data:text/javascript,export function resolve(specifier, context, next) {" +
    ' return next(specifier, { ...context, conditions: [...context.conditions, "paylink-source"] }); }',
);
registerTsx();
const { runCli } = await import("../src/cli/main.ts");
process.exitCode = await runCli(process.argv.slice(2));
