// `npm run bench` (docs/performance.md): Paylink on PostgreSQL and on the embedded database against
// bare baselines, in one run; writes bench/RESULTS.md. `--quick` (CI): short runs, growth to 50 k
// links, a smaller webhook backlog; it fails only when a scenario crashes or answers errors.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createScratchDatabase } from "./databases.ts";
import { growth } from "./growth.ts";
import { type LoadPlan, load } from "./load.ts";
import { type Baseline, PAYLINK_LAUNCH_ENVIRONMENT, type Paylink, peakRssMb, startBaseline, startPaylink } from "./processes.ts";
import { medianLine, type Report, type Row, ratio, writeResults } from "./report.ts";
import { baselineRequests, paylinkScenarios } from "./scenarios.ts";
import { ADVISED_ENVIRONMENT, ADVISED_NODE_FLAGS } from "./tuning.ts";
import { fetchLoopThroughput, paymentToReceipt, percentile, startReceiver, webhookThroughput } from "./webhooks.ts";

const quick = process.argv.includes("--quick");
// --only=create,get: just those scenarios and their baselines on PostgreSQL (to measure one change);
// --only=webhooks: the webhook measurements on PostgreSQL; --only=growth: the growth part (after the
// other named scenarios, if any). With --embedded: the same scenarios on the embedded database
// instead (its webhook measurement is the payment → receipt latency only).
const only = process.argv
  .find((arg) => arg.startsWith("--only="))
  ?.slice("--only=".length)
  .split(",");
const embeddedOnly = process.argv.includes("--embedded");
// --rounds=3: each scenario and its baseline measured three times, alternating, and the median
// ratio reported beside each pair's: one pair's ratio moves by ±20% with a shared machine's load.
const roundsArg = process.argv.find((arg) => arg.startsWith("--rounds="))?.slice("--rounds=".length);
const rounds = roundsArg === undefined ? 1 : Number(roundsArg);
if (!Number.isInteger(rounds) || rounds < 1 || rounds > 9) {
  console.error(`--rounds must be a whole number from 1 to 9, not ${roundsArg}`);
  process.exit(2);
}
const started = performance.now();
// Paylink is measured as operators run it: the compiled server (`npm run build`), which also makes
// its peak RSS the operator's figure. `--sources` runs the TypeScript under tsx instead.
const program = process.argv.includes("--sources") ? "sources" : "built";
// --no-build: measure the build already in dist/ (`.ci/run` builds once for the whole run).
if (program === "built" && !process.argv.includes("--no-build")) {
  const built = spawnSync("npm", ["run", "build", "--silent"], {
    cwd: fileURLToPath(new URL("../../..", import.meta.url)),
    stdio: "inherit",
  });
  if (built.status !== 0) {
    console.error("npm run build failed: the benchmark measures the built server");
    process.exit(1);
  }
}
const postgresPlan: LoadPlan = quick
  ? { connections: 50, warmupSeconds: 1, seconds: 1 }
  : { connections: 50, warmupSeconds: 3, seconds: 10 };
// One embedded database serves one query at a time: 10 connections already queue.
const embeddedPlan: LoadPlan = { ...postgresPlan, connections: 10 };
const backlog = quick ? 2_000 : 10_000;
// BENCH_PAYLINK_NODE_ARGS="--max-semi-space-size=8": the options of the node that runs Paylink
// (not the baselines) in place of the advised flags (bench/tuning.ts), to measure one of V8's
// settings; the report names them.
const PAYLINK_NODE_ARGS = (process.env.BENCH_PAYLINK_NODE_ARGS ?? ADVISED_NODE_FLAGS.join(" ")).split(/\s+/).filter(Boolean);
const growthSizes = quick ? [10_000, 50_000] : [10_000, 100_000, 1_000_000];
const latencyPayments = quick ? 10 : 200;

const report: Report = {
  quick,
  rows: [],
  growth: [],
  latency: [],
  rss: [],
  medians: [],
  seconds: 0,
  settings:
    `autocannon ${postgresPlan.warmupSeconds} s warm-up + ${postgresPlan.seconds} s per scenario, ` +
    `${postgresPlan.connections} connections on PostgreSQL, ${embeddedPlan.connections} on the embedded database; ` +
    (rounds > 1 ? `${rounds} alternating rounds of each scenario and its baseline; ` : "") +
    (program === "built" ? "Paylink built (`npm run build`, `bin/paylink.mjs serve`)" : "Paylink from its sources under tsx") +
    `; ${paylinkLaunchEnvironment()}` +
    (PAYLINK_NODE_ARGS.length > 0 ? `; Paylink's node started with \`${PAYLINK_NODE_ARGS.join(" ")}\`` : ""),
};

/** What the report says of the environment Paylink ran with (bench/tuning.ts). */
function paylinkLaunchEnvironment(): string {
  return Object.entries(PAYLINK_LAUNCH_ENVIRONMENT)
    .map(([name, value]) => {
      if (value === "") return `Paylink without \`${name}\``;
      const advised = ADVISED_ENVIRONMENT[name as keyof typeof ADVISED_ENVIRONMENT];
      return `Paylink with \`${name}=${value}\`${value === advised ? ", as docs/operations.md advises" : ""}`;
    })
    .join("; ");
}
const broken: string[] = [];
const scratchDirs: string[] = [];

function add(row: Row & { failures?: number }): void {
  if (row.failures) broken.push(`${row.database} ${row.scenario}: ${row.failures} failed requests`);
  report.rows.push(row);
  const shown = [row.database.padEnd(10), row.scenario.padEnd(18), `${row.rps.toFixed(0).padStart(7)} req/s`];
  if (row.p50 !== undefined) shown.push(`p50 ${row.p50.toFixed(1)} ms`, `p99 ${row.p99!.toFixed(1)} ms`);
  if (row.cpuMsPerRequest !== undefined) shown.push(`${row.cpuMsPerRequest.toFixed(2)} CPU ms/req`);
  if (row.baselineRps) shown.push(`${ratio(row)} of ${row.baseline}${row.target ? ` (target ${row.target})` : ""}`);
  console.log(shown.join("  "));
}

const TARGETS: Record<string, Record<string, string>> = {
  postgres: {
    "/healthz": "≥ 0.8×",
    create: "≥ 0.8×, p99 < 25 ms",
    get: "≥ 0.8×, p99 < 25 ms",
    list: "≥ 0.5×",
    "checkout page": "≥ 0.6×",
    "checkout payment": "≥ 0.3×",
  },
  embedded: { create: "≥ 0.6×, p99 < 50 ms", get: "≥ 0.6×, p99 < 50 ms" },
};
const BASELINE_NAMES = { insert: "baseline insert", select: "baseline select", bare: "bare /healthz" } as const;

/**
 * Each scenario right after its baseline, so the two see the same load on a shared machine (the
 * baseline figure shown is the one measured next to the scenario).
 */
async function measurePairs(database: string, plan: LoadPlan, baseline: Baseline, paylink: Paylink): Promise<void> {
  const baselines = await baselineRequests(baseline.baseUrl);
  for (const scenario of (await paylinkScenarios(paylink)).filter((s) => !only || only.includes(s.name))) {
    const ratios: number[] = [];
    const target = TARGETS[database]![scenario.name] ?? "";
    const note = scenario.perUnit === 2 ? "(req/s = payments/s: page + form post)" : undefined;
    for (let round = 1; round <= rounds; round++) {
      const base = await load(plan, baselines[scenario.against], 1, baseline.child.pid);
      add({ database, scenario: BASELINE_NAMES[scenario.against], ...base, note: `(next to ${scenario.name})` });
      const measured = await load(plan, scenario.options, scenario.perUnit, paylink.server.child.pid);
      add({
        database,
        scenario: scenario.name,
        ...measured,
        baseline: BASELINE_NAMES[scenario.against],
        baselineRps: base.rps,
        target,
        ...(note ? { note } : {}),
      });
      ratios.push(measured.rps / base.rps);
    }
    if (rounds > 1) {
      const median = { database, scenario: scenario.name, ratios, target };
      report.medians.push(median);
      console.log(`${database.padEnd(10)}  ${scenario.name}: ${medianLine(median)}`);
    }
  }
}

async function measureWebhooks(database: string, paylink: Paylink, databaseUrl: string | undefined) {
  const receiver = await startReceiver();
  try {
    await paylink.admin(`/merchants/${paylink.merchantId}/webhooks`, { url: receiver.url });
    const latencies = await paymentToReceipt(paylink, receiver, latencyPayments);
    report.latency.push({ database, payments: latencies.length, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) });
    console.log(
      `${database} payment → receipt  p50 ${percentile(latencies, 0.5).toFixed(1)} ms  p99 ${percentile(latencies, 0.99).toFixed(1)} ms`,
    );
    if (!databaseUrl) return;
    const worker = await webhookThroughput(paylink, databaseUrl, receiver, backlog);
    const bare = await fetchLoopThroughput(receiver, backlog);
    add({
      database,
      scenario: `webhooks (${backlog} backlog)`,
      rps: worker,
      baseline: "fetch loop ×16",
      baselineRps: bare,
      target: "≥ 0.5×",
    });
  } finally {
    receiver.server.close();
  }
}

// Printed for --only runs too, which write no RESULTS.md: a memory change is measured with them.
function notePeakRss(process: string, paylink: Paylink): void {
  const mb = peakRssMb(paylink.server.child.pid);
  report.rss.push({ process, mb });
  console.log(`${process}: peak RSS ${mb?.toFixed(0) ?? "?"} MB`);
}

async function postgres(): Promise<void> {
  const baselineDb = await createScratchDatabase("baseline");
  const database = await createScratchDatabase("paylink");
  const baseline = await startBaseline("pg", baselineDb.url);
  try {
    const paylink = await startPaylink({ databaseUrl: database.url }, PAYLINK_NODE_ARGS, program);
    try {
      await measurePairs("postgres", postgresPlan, baseline, paylink);
      if (!only || only.includes("webhooks")) await measureWebhooks("postgres", paylink, database.url);
      if (only && !only.includes("growth")) return;
      report.growth = await growth(paylink, database.url, growthSizes, quick ? 5 : 60);
      for (const g of report.growth)
        console.log(
          `growth ${g.links} links: list ${g.list.toFixed(1)} ms, search (20 matches) ${g.searchFew.toFixed(1)} ms, search (growing) ${g.search.toFixed(1)} ms, get ${g.get.toFixed(1)} ms`,
        );
    } finally {
      notePeakRss("Paylink on PostgreSQL", paylink);
      await paylink.server.stop();
    }
  } finally {
    await baseline.stop();
    await baselineDb.drop();
    await database.drop();
  }
}

async function embedded(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "paylink-bench-"));
  scratchDirs.push(dir);
  const baseline = await startBaseline("pglite", join(dir, "baseline"));
  try {
    const paylink = await startPaylink({ dataDir: join(dir, "paylink") }, PAYLINK_NODE_ARGS, program);
    try {
      await measurePairs("embedded", embeddedPlan, baseline, paylink);
      if (!only || only.includes("webhooks")) await measureWebhooks("embedded", paylink, undefined);
    } finally {
      notePeakRss("Paylink embedded", paylink);
      await paylink.server.stop();
    }
  } finally {
    await baseline.stop();
  }
}

try {
  if (!embeddedOnly) await postgres();
  if (!only || embeddedOnly) await embedded();
} catch (error) {
  broken.push(`crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
} finally {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
}
report.seconds = (performance.now() - started) / 1000;
const resultsFile = fileURLToPath(new URL(quick ? "./RESULTS-quick.md" : "./RESULTS.md", import.meta.url));
if (report.rows.length > 0 && !only) console.log(`\n${writeResults(resultsFile, report)}`);
if (broken.length > 0) {
  console.error(`\nBroken scenarios:\n${broken.map((b) => `  - ${b}`).join("\n")}`);
  process.exit(1);
}
process.exit(0);
