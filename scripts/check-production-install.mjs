// Proves the production install from a clean copy of the repository, the way docs/operations.md
// tells an operator to do it, with the build it is given: clone the committed tree, put the
// repository's compiled `packages/*/dist` into the clone (so CI builds once: `.ci/run` builds, then
// calls this), run `npm ci --omit=dev` (no TypeScript, no tsx), check that the compiled code loads
// with the runtime dependencies alone, start `npx paylink serve` on a free port with an empty data
// directory, wait for /healthz, create a payment link with the demo API key it prints, open the
// link's checkout page, and stop it with SIGTERM. Runs on the Node that runs this script (npm and
// npx included).
// Usage: npm ci && npm run build && node scripts/check-production-install.mjs [repository, default: this one]
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";

const repository = process.argv[2] ?? new URL("..", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "paylink-production-"));
const checkout = join(work, "paylink");
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH}`, CI: "true" };
delete env.TEST_DATABASE_URL;
delete env.DATABASE_URL;
let server;

function run(command, args, cwd = checkout) {
  console.log(`$ ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { cwd, env, stdio: ["ignore", "inherit", "inherit"] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${result.status ?? result.signal}`);
}

// The build is the repository's own (one build per CI run); a build of uncommitted sources would
// prove those, not the commit, so say so rather than pass silently.
function copyBuild() {
  const packages = readdirSync(join(checkout, "packages"));
  for (const name of packages) {
    const built = join(repository, "packages", name, "dist");
    if (!existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` first`);
    cpSync(built, join(checkout, "packages", name, "dist"), { recursive: true });
  }
  const changed = spawnSync("git", ["status", "--porcelain", "--untracked-files=no", "--", "packages", "package-lock.json"], {
    cwd: repository,
    encoding: "utf8",
  }).stdout;
  if (changed) console.warn(`warning: packages/ has uncommitted changes; this proves their build, not the commit's:\n${changed}`);
  console.log(`build taken from ${repository}: ${packages.map((name) => `packages/${name}/dist`).join(", ")}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function main() {
  console.log(`Node ${process.version}; working in ${work}`);
  run("git", ["clone", "--quiet", "--no-hardlinks", repository, checkout], work);
  copyBuild();
  run("npm", ["ci", "--omit=dev", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"]);
  for (const tool of ["typescript", "tsx"])
    if (existsSync(join(checkout, "node_modules", tool))) throw new Error(`the production install still has ${tool}`);
  run(process.execPath, ["scripts/check-dist-imports.mjs"]);

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let output = "";
  const started = Date.now();
  server = spawn("npx", ["--no-install", "paylink", "serve"], {
    cwd: checkout,
    env: { ...env, PORT: String(port), HOST: "127.0.0.1", PAYLINK_DATA_DIR: join(work, "data"), LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: npx and the server it starts are stopped together
  });
  server.stdout.on("data", (chunk) => (output += chunk));
  server.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise((resolve) => server.once("exit", (code, signal) => resolve(code ?? signal)));
  let ended = false;
  exited.then(() => (ended = true));

  for (;;) {
    if (ended) throw new Error(`paylink serve exited before answering /healthz:\n${output}`);
    if (Date.now() - started > 120_000) throw new Error(`paylink serve did not answer /healthz within 120 s:\n${output}`);
    const health = await fetch(`${base}/healthz`).catch(() => undefined);
    if (health?.ok) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  console.log(`paylink serve answered /healthz after ${Date.now() - started} ms`);

  const apiKey = /API key\s+(plk_\w+)/.exec(output)?.[1];
  const terminalIdentifier = /terminalIdentifier\s+([0-9a-f]{12})/.exec(output)?.[1];
  if (!apiKey || !terminalIdentifier) throw new Error(`no demo credentials in the output of the first start:\n${output}`);
  const item = { name: "Lopapeysa", quantity: 1, unitPrice: 489000, amountWithoutDiscount: 489000, amount: 489000 };
  const created = await fetch(`${base}/api/v1/paymentlinks/create`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    body: JSON.stringify({ type: "PayByLink", terminalIdentifier, amount: 489000, currency: "ISK", items: [item], culture: "en" }),
  });
  const link = await created.json();
  if (created.status !== 200 || !link.paymentLinkReference)
    throw new Error(`creating a link failed: ${created.status} ${JSON.stringify(link)}`);
  const page = await fetch(link.url.replace(/^https?:\/\/[^/]+/, base));
  const html = await page.text();
  if (page.status !== 200 || !html.includes("<form")) throw new Error(`the checkout page of ${link.url} answered ${page.status}`);
  console.log(`created ${link.paymentLinkReference}; its checkout page renders`);

  process.kill(-server.pid, "SIGTERM");
  const code = await exited;
  if (code !== 0 && code !== "SIGTERM") throw new Error(`paylink serve stopped with ${code}:\n${output}`);
  server = undefined;
  console.log("production install: OK");
}

try {
  await main();
} catch (error) {
  console.error(`production install: FAILED\n${error.message}`);
  process.exitCode = 1;
} finally {
  if (server && server.exitCode === null && server.signalCode === null) {
    try {
      process.kill(-server.pid, "SIGKILL");
    } catch {}
  }
  rmSync(work, { recursive: true, force: true });
}
