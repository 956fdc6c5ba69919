// The processes a bench run starts: Paylink (a real `paylink serve`: the built server as operators
// run it, or the TypeScript sources under tsx as the tests run it) with a merchant, terminal and API
// key made through the admin API, and the baseline servers. Each process's peak RSS is read from
// /proc before it stops.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { freePort, PAYLINK_BIN, TEST_PROCESS_SECRET_KEY } from "../test/support/process.ts";
import { ADVISED_ENVIRONMENT } from "./tuning.ts";

/**
 * The environment Paylink runs with in the bench: the advised one (bench/tuning.ts), each variable
 * unless the bench itself was given one. The baselines get the defaults.
 */
export const PAYLINK_LAUNCH_ENVIRONMENT = Object.fromEntries(
  Object.entries(ADVISED_ENVIRONMENT).map(([name, value]) => [name, process.env[name] ?? value]),
) as Record<keyof typeof ADVISED_ENVIRONMENT, string>;

/** `paylink` as installed: the compiled server in dist/ (`npm run build` makes it). */
const PAYLINK_BUILT_BIN = fileURLToPath(new URL("../bin/paylink.mjs", import.meta.url));

/**
 * Which `paylink` to start: "built" (what operators run: no TypeScript loader in memory or on the
 * request path) or "sources" (tsx, as the tests run it; what the profiler wants, for names and lines).
 */
export type PaylinkProgram = "built" | "sources";

export const ADMIN_TOKEN = "bench-admin-token-0123456789";

export interface PaylinkProcess {
  child: ChildProcess;
  stop(): Promise<void>;
}

export interface Paylink {
  server: PaylinkProcess;
  baseUrl: string;
  merchantId: string;
  apiKey: string;
  terminalIdentifier: string;
  admin(path: string, body: unknown): Promise<any>;
}

/** Peak resident set size (VmHWM) of a running process, in MB; undefined off Linux. */
export function peakRssMb(pid: number | undefined): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process has used so far, in ms; undefined off Linux. */
export function cpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** Starts `paylink serve` with `nodeArgs` (e.g. --cpu-prof); resolves once /readyz answers 200. */
async function spawnPaylink(
  env: Record<string, string>,
  nodeArgs: string[],
  program: PaylinkProgram,
): Promise<PaylinkProcess & { baseUrl: string }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...nodeArgs, program === "built" ? PAYLINK_BUILT_BIN : PAYLINK_BIN, "serve"], {
    env: {
      ...process.env,
      ...PAYLINK_LAUNCH_ENVIRONMENT,
      HOST: "127.0.0.1",
      PORT: String(port),
      PUBLIC_BASE_URL: baseUrl,
      PAYLINK_SECRET_KEY: TEST_PROCESS_SECRET_KEY,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  for (let waited = 0; child.exitCode === null && waited < 90_000; waited += 100) {
    const ready = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return { child, stop, baseUrl };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`paylink serve did not become ready; its output:\n${output}`);
}

/** Starts Paylink on PostgreSQL (`databaseUrl`) or on the embedded database in `dataDir`. */
export async function startPaylink(
  target: { databaseUrl: string } | { dataDir: string },
  nodeArgs: string[] = [],
  program: PaylinkProgram = "sources",
): Promise<Paylink> {
  const env: Record<string, string> = {
    PAYLINK_ADMIN_TOKEN: ADMIN_TOKEN,
    PAYLINK_WEBHOOK_ALLOW_PRIVATE: "true",
    LOG_LEVEL: "warn",
    // High, not off: every request still pays for the limiter's bookkeeping, as in production.
    PAYLINK_RATE_LIMIT_API: "999999999",
    PAYLINK_RATE_LIMIT_CHECKOUT_FAILURES: "999999999",
    ...("databaseUrl" in target ? { DATABASE_URL: target.databaseUrl } : { PAYLINK_DATA_DIR: target.dataDir }),
  };
  const server = await spawnPaylink(env, nodeArgs, program);
  const admin = async (path: string, body: unknown) => {
    const response = await fetch(`${server.baseUrl}/admin/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (response.status !== 200) throw new Error(`admin ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as any;
  };
  try {
    const { merchantId } = await admin("/merchants", { name: "Bench shop" });
    const { terminalIdentifier } = await admin(`/merchants/${merchantId}/terminals`, {});
    const { apiKey } = await admin(`/merchants/${merchantId}/apikeys`, {});
    return { server, baseUrl: server.baseUrl, merchantId, apiKey, terminalIdentifier, admin };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

export interface Baseline {
  baseUrl: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

const BASELINE = fileURLToPath(new URL("./baseline-server.ts", import.meta.url));

export async function startBaseline(mode: "pg" | "pglite", target = ""): Promise<Baseline> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", BASELINE, mode, target, String(port)], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`baseline ${mode} exited with ${code}:\n${output}`)));
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    child,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
