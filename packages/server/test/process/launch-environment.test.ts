// Paylink's launchers (`npm start`, the systemd unit, the container image) all start the server
// with the environment of src/launch-environment.ts, and this machine's C library
// and node take the settings in it: glibc ignores a misspelt tunable without a word, so only
// asking glibc's own loader shows the value arrives, and node's young generation is measured.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { LAUNCH_ENVIRONMENT } from "../../src/launch-environment.ts";

const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const { GLIBC_TUNABLES, NODE_OPTIONS } = LAUNCH_ENVIRONMENT;
const read = (path: string) => readFileSync(join(repoRoot, path), "utf8");
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");
const VARIABLES = Object.entries(LAUNCH_ENVIRONMENT);
/** `NAME=value` for every variable, in the order the launchers write them. */
const ASSIGNMENTS = VARIABLES.map(([name, value]) => `${name}=${value}`).join(" ");

test("npm start, the systemd unit, the container image and the deployment recipe set the launch environment", () => {
  const start = JSON.parse(read("package.json")).scripts.start as string;
  assert.match(start, new RegExp(`${escaped(ASSIGNMENTS)} node packages/server/bin/paylink\\.mjs serve$`));
  const recipe = read("docs/operations.md");
  assert.match(recipe, new RegExp(`^${escaped(ASSIGNMENTS)} PAYLINK_DATA_DIR=\\S+ npx paylink serve$`, "m"));
  const unit = read("deploy/paylink.service");
  const image = read("deploy/Containerfile");
  for (const [name, value] of VARIABLES) {
    assert.deepEqual(unit.match(new RegExp(`^Environment=${name}=.*$`, "gm")), [`Environment=${name}=${value}`]);
    assert.deepEqual(image.match(new RegExp(`^ENV ${name}=.*$`, "gm")), [`ENV ${name}=${value}`]);
  }
});

test("node takes the young generation's size from NODE_OPTIONS", () => {
  // A young generation under steady allocation with survivors grows to its largest size; report it.
  const program = `
    const v8 = require("node:v8");
    let kept = [];
    for (let i = 0; i < 2e6; i++) { kept.push({ i, text: "x" + i }); if (kept.length > 20000) kept = []; }
    const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
    console.log(young.space_size / 1048576);`;
  const youngMb = (env: Record<string, string>) => {
    const run = spawnSync(process.execPath, ["-e", program], { env: { PATH: process.env.PATH ?? "", ...env }, encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    return Number(run.stdout.trim());
  };
  const semiSpaceMb = Number(/--max-semi-space-size=(\d+)/.exec(NODE_OPTIONS)![1]);
  // Two semi-spaces of at most that size; without the option V8 lets them grow larger.
  assert.ok(youngMb({ NODE_OPTIONS }) <= 2 * semiSpaceMb, "with the launchers' NODE_OPTIONS");
  assert.ok(youngMb({}) > 2 * semiSpaceMb, "without it");
});

// glibc's dynamic loader lists its tunables as a program started with this environment gets them.
const LOADERS = ["/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1"];
const loader = process.platform === "linux" ? LOADERS.find((path) => existsSync(path)) : undefined;

/** The value glibc's loader lists for a tunable, as a program started with `env` would get it. */
function tunableValue(name: string, env: Record<string, string>): number | undefined {
  const listed = spawnSync(loader!, ["--list-tunables"], { env, encoding: "utf8" });
  assert.equal(listed.status, 0, listed.stderr);
  const shown = new RegExp(`^${name.replaceAll(".", "\\.")}: (0x[0-9a-f]+|\\d+) `, "m").exec(listed.stdout);
  return shown ? Number(shown[1]) : undefined;
}

test("glibc takes the allocator setting", { skip: loader ? false : "no glibc loader on this machine" }, () => {
  const [name, value] = GLIBC_TUNABLES.split("=") as [string, string];
  assert.equal(tunableValue(name, { GLIBC_TUNABLES }), Number(value));
  // Without the variable glibc keeps its own default (0: the threshold adjusts itself).
  assert.equal(tunableValue(name, {}), 0);
});
