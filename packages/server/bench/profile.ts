// Profiles one scenario: Paylink on a scratch PostgreSQL database (or the embedded one with
// --embedded) under `node --cpu-prof`, loaded for a few seconds, then the functions with the most
// self time, summed by function and file.
//
//   npx tsx packages/server/bench/profile.ts <scenario: /healthz|create|get|list|checkout page|checkout payment> [seconds=10] [--embedded] [--keep]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScratchDatabase } from "./databases.ts";
import { load } from "./load.ts";
import { startPaylink } from "./processes.ts";
import { paylinkScenarios } from "./scenarios.ts";

const [name = "create", seconds = "10"] = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const embeddedRun = process.argv.includes("--embedded");
const profileDir = mkdtempSync(join(tmpdir(), "paylink-profile-"));
const database = embeddedRun ? undefined : await createScratchDatabase("profile");
const paylink = await startPaylink(database ? { databaseUrl: database.url } : { dataDir: join(profileDir, "data") }, [
  "--cpu-prof",
  `--cpu-prof-dir=${profileDir}`,
]);
try {
  const scenario = (await paylinkScenarios(paylink)).find((s) => s.name === name);
  if (!scenario) throw new Error(`no scenario ${name}`);
  const result = await load(
    { connections: embeddedRun ? 10 : 50, warmupSeconds: 2, seconds: Number(seconds) },
    scenario.options,
    scenario.perUnit,
  );
  console.log(`${name}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ${result.failures} failures`);
} finally {
  await paylink.server.stop();
  await database?.drop();
}

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const file = readdirSync(profileDir).find((f) => f.endsWith(".cpuprofile"))!;
const profile = JSON.parse(readFileSync(join(profileDir, file), "utf8")) as { nodes: Node[]; samples: number[] };
const counts = new Map<number, number>();
for (const sample of profile.samples) counts.set(sample, (counts.get(sample) ?? 0) + 1);
const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
for (const node of profile.nodes) {
  const n = counts.get(node.id) ?? 0;
  const url = node.callFrame.url.replace(/^file:\/\//, "").replace(/.*\/node_modules\//, "~/");
  const key = `${node.callFrame.functionName || "(anonymous)"} ${url}:${node.callFrame.lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + n);
  const pkg = url.startsWith("~/")
    ? url
        .split("/")
        .slice(1, url.startsWith("~/@") ? 3 : 2)
        .join("/")
    : url.includes("/src/")
      ? `src/${url.split("/src/")[1]}`
      : url || node.callFrame.functionName;
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + n);
}
const total = profile.samples.length;
const top = (map: Map<string, number>, count: number) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, n]) => `${((100 * n) / total).toFixed(1).padStart(5)}%  ${key}`);
console.log(`\nself time by function (${total} samples):\n${top(byFunction, 30).join("\n")}`);
console.log(`\nself time by package or source file:\n${top(byPackage, 25).join("\n")}`);
if (process.argv.includes("--keep")) console.log(`\nprofile kept: ${join(profileDir, file)} (open it in Chrome DevTools)`);
else rmSync(profileDir, { recursive: true, force: true });
