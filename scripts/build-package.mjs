// Builds the workspace package in the current directory (npm runs `build` scripts there): empties
// dist/, compiles src/ with its tsconfig.build.json, and copies the files tsc does not emit (SQL
// migrations, anything that is not TypeScript) to the same place under dist/, where the compiled
// code looks for them beside itself. Emptying dist/ first keeps a module that was moved or deleted
// in src/ from living on in the build.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const cwd = process.cwd();
const src = join(cwd, "src");
const dist = join(cwd, "dist");
if (!existsSync(join(cwd, "tsconfig.build.json")) || !existsSync(src)) {
  console.error(`build-package: ${cwd} has no tsconfig.build.json and src/`);
  process.exit(2);
}

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(join(cwd, "package.json")).resolve("typescript/bin/tsc");
const compiled = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd, stdio: "inherit" });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

const isTypeScript = (path) => /\.(ts|tsx|mts|cts)$/.test(path);
cpSync(src, dist, { recursive: true, filter: (path) => !isTypeScript(path) });
