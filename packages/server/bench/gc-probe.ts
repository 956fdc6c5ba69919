// What garbage collection costs a scenario, on the built server and PostgreSQL (docs/performance.md,
// "Pretenuring"): loads each scenario at each connection count and reads V8's --trace-gc-nvp lines
// for promoted bytes per request, scavenges, major collections and pause time per request, beside
// CPU per request and the process's peak RSS. Build first (`npm run build`).
//   npx tsx packages/server/bench/gc-probe.ts get,list,create 50 [extra node flags…]
import { createScratchDatabase } from "./databases.ts";
import { load } from "./load.ts";
import { cpuMs, peakRssMb, startPaylink } from "./processes.ts";
import { paylinkScenarios } from "./scenarios.ts";

const names = (process.argv[2] ?? "get").split(",");
const connectionCounts = (process.argv[3] ?? "50").split(",").map(Number);
const nodeFlags = process.argv.slice(4);
const seconds = 6;

interface GcTally {
  scavenges: number;
  majors: number;
  promotedBytes: number;
  pauseMs: number;
}

function tally(trace: string): GcTally {
  const sum: GcTally = { scavenges: 0, majors: 0, promotedBytes: 0, pauseMs: 0 };
  for (const line of trace.split("\n")) {
    const kind = /gc=(\w+)/.exec(line)?.[1];
    if (!kind) continue;
    sum.pauseMs += Number(/ pause=([\d.]+)/.exec(line)?.[1] ?? 0);
    if (kind === "s") {
      sum.scavenges++;
      sum.promotedBytes += Number(/promoted=(\d+)/.exec(line)?.[1] ?? 0);
    } else sum.majors++;
  }
  return sum;
}

const database = await createScratchDatabase("gcprobe");
const paylink = await startPaylink({ databaseUrl: database.url }, ["--trace-gc-nvp", ...nodeFlags], "built");
let trace = "";
paylink.server.child.stdout?.on("data", (chunk) => {
  trace += chunk;
});
try {
  const scenarios = await paylinkScenarios(paylink);
  for (const name of names) {
    const scenario = scenarios.find((s) => s.name === name);
    if (!scenario) throw new Error(`no scenario named ${name}: ${scenarios.map((s) => s.name).join(", ")}`);
    for (const connections of connectionCounts) {
      await load({ connections, warmupSeconds: 1, seconds: 2 }, scenario.options, scenario.perUnit);
      trace = "";
      const cpuBefore = cpuMs(paylink.server.child.pid) ?? 0;
      const result = await load({ connections, warmupSeconds: 0, seconds }, scenario.options, scenario.perUnit);
      const requests = result.rps * seconds;
      const cpu = ((cpuMs(paylink.server.child.pid) ?? 0) - cpuBefore) / requests;
      const gc = tally(trace);
      console.log(
        `${name} c=${connections}: ${result.rps.toFixed(0)} req/s p50 ${result.p50} p99 ${result.p99} ms; ` +
          `scavenges ${gc.scavenges}, majors ${gc.majors}, promoted ${(gc.promotedBytes / requests / 1024).toFixed(2)} kB/req, ` +
          `GC pause ${((gc.pauseMs / requests) * 1000).toFixed(0)} µs/req, CPU ${cpu.toFixed(3)} ms/req, ` +
          `peak RSS ${peakRssMb(paylink.server.child.pid)?.toFixed(0)} MB`,
      );
    }
  }
} finally {
  await paylink.server.stop();
  await database.drop();
}
