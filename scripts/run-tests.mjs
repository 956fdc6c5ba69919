// Runs every *.test.ts under packages/*/test with node's test runner (through tsx), so CI reads
// node's own summary line. Node 20 cannot expand globs in `--test`, hence this small finder.
// paylink-sdk resolves to its TypeScript sources (the "paylink-source" export condition), so the
// tests never run a stale SDK build.
// Usage: node scripts/run-tests.mjs [substring-filter ...] [--except=substring ...]
// A file runs when its path contains one of the filters (all files without any) and none of the
// --except substrings.

import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const args = process.argv.slice(2);
const filters = args.filter((arg) => !arg.startsWith("--except="));
const exceptions = args.filter((arg) => arg.startsWith("--except=")).map((arg) => arg.slice("--except=".length));

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith(".test.ts")) found.push(path);
  }
  return found;
}

const files = readdirSync(join(root, "packages"))
  .flatMap((pkg) => {
    const testDir = join(root, "packages", pkg, "test");
    try {
      return findTests(testDir);
    } catch {
      return [];
    }
  })
  .map((file) => relative(root, file))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .filter((file) => !exceptions.some((e) => file.includes(e)))
  .sort();

if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}

const result = spawnSync(
  process.execPath,
  ["--conditions=paylink-source", "--import", "tsx", "--test", "--test-concurrency=2", "--test-reporter=spec", ...files],
  {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "test" },
  },
);
process.exit(result.status ?? 1);
