// One load measurement: autocannon against a URL, a warm-up first (discarded), then a fixed
// duration at a fixed number of connections. A scenario is broken when any request errs, times
// out or answers 4xx/5xx; the bench reports that and exits non-zero.
import autocannon, { type Options } from "autocannon";
import { cpuMs } from "./processes.ts";

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  failures: number;
  /** The server's CPU time (user + system) per counted unit during the measured run, when its pid is known. */
  cpuMsPerRequest?: number;
}

export interface LoadPlan {
  connections: number;
  warmupSeconds: number;
  seconds: number;
}

export async function load(plan: LoadPlan, options: Options, requestsPerUnit = 1, serverPid?: number): Promise<LoadResult> {
  if (plan.warmupSeconds > 0) await autocannon({ ...options, connections: plan.connections, duration: plan.warmupSeconds });
  const cpuBefore = cpuMs(serverPid);
  const result = await autocannon({ ...options, connections: plan.connections, duration: plan.seconds, timeout: 30 });
  const cpuAfter = cpuMs(serverPid);
  const failures = result.errors + result.timeouts + result["4xx"] + result["5xx"];
  return {
    rps: result.requests.average / requestsPerUnit,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    failures,
    ...(cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0
      ? { cpuMsPerRequest: ((cpuAfter - cpuBefore) * requestsPerUnit) / result.requests.total }
      : {}),
  };
}
