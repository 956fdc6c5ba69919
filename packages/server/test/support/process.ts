// Real `paylink serve` processes (and other `paylink` commands, such as `worker`) for tests that need
// restarts, kill -9, signals, or several instances.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

/** PAYLINK_SECRET_KEY of test processes on PostgreSQL (a test value, not a secret). */
export const TEST_PROCESS_SECRET_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";

export const PAYLINK_BIN = fileURLToPath(new URL("../../bin/paylink-dev.mjs", import.meta.url));

export interface CommandProcess {
  child: ChildProcess;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
  /** Sends `signal` unless the process has already ended; resolves as `exited` does. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

export interface ServerProcess extends CommandProcess {
  baseUrl: string;
  port: number;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts `paylink serve`; resolves once /readyz answers 200 (or rejects if the process exits first). */
export async function startServerProcess(
  env: Record<string, string>,
  options: { waitReady?: boolean; timeoutMs?: number } = {},
): Promise<ServerProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const handle: ServerProcess = {
    ...startPaylinkCommand("serve", {
      LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      PUBLIC_BASE_URL: baseUrl,
      // Required on PostgreSQL (it encrypts webhook secrets); instances of one test share it.
      ...(env.DATABASE_URL ? { PAYLINK_SECRET_KEY: TEST_PROCESS_SECRET_KEY } : {}),
      ...env,
      PORT: String(port),
    }),
    baseUrl,
    port,
  };
  const { exited } = handle;
  if (options.waitReady === false) return handle;

  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  let done = false;
  exited.then(() => (done = true));
  while (!done && Date.now() < deadline) {
    try {
      const response = await fetch(`${baseUrl}/readyz`);
      if (response.status === 200) return handle;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const ended = done ? `exited with ${await exited}` : "still not ready after the timeout";
  await handle.stop("SIGKILL");
  throw new Error(`paylink serve ${ended}; its output:\n${handle.output()}`);
}

/** Starts `paylink <command>` with `env` over this process's environment, collecting what it prints. */
export function startPaylinkCommand(command: string, env: Record<string, string>): CommandProcess {
  const child = spawn(process.execPath, [PAYLINK_BIN, command], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  return {
    child,
    output: () => output,
    exited,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** The demo credentials the first start prints. */
export function parseDemoCredentials(output: string): {
  apiKey: string;
  terminalIdentifier: string;
  themeKey: string;
  portalEmail: string;
  portalPassword: string;
} {
  const apiKey = /API key\s+(plk_\w+)/.exec(output)?.[1];
  const terminalIdentifier = /terminalIdentifier\s+([0-9a-f]{12})/.exec(output)?.[1];
  const themeKey = /theme key\s+(thm_\w+)/.exec(output)?.[1];
  const portalEmail = /e-mail\s+(\S+@\S+)/.exec(output)?.[1];
  const portalPassword = /password\s+(\S+)/.exec(output)?.[1];
  if (!apiKey || !terminalIdentifier || !themeKey || !portalEmail || !portalPassword)
    throw new Error(`no demo credentials in output:\n${output}`);
  return { apiKey, terminalIdentifier, themeKey, portalEmail, portalPassword };
}

export async function callApi(
  baseUrl: string,
  apiKey: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { "x-api-key": apiKey, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
