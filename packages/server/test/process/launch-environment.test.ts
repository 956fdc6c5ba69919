// Paylink's launchers (`npm start`, the systemd unit, the container image) all start the server
// with the environment of src/launch-environment.ts (D-265), and this machine's C library takes
// the allocator setting in it: glibc ignores a misspelt tunable without a word, so only asking
// glibc's own loader shows the value arrives.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { LAUNCH_ENVIRONMENT } from "../../src/launch-environment.ts";

const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const { GLIBC_TUNABLES } = LAUNCH_ENVIRONMENT;
const read = (path: string) => readFileSync(join(repoRoot, path), "utf8");

test("npm start, the systemd unit, the container image and the deployment recipe set the launch environment", () => {
  const start = JSON.parse(read("package.json")).scripts.start as string;
  assert.match(start, new RegExp(`GLIBC_TUNABLES=${GLIBC_TUNABLES} node packages/server/bin/paylink\\.mjs serve$`));
  const unit = read("deploy/paylink.service");
  assert.deepEqual(unit.match(/^Environment=GLIBC_TUNABLES=.*$/gm), [`Environment=GLIBC_TUNABLES=${GLIBC_TUNABLES}`]);
  const recipe = read("docs/operations.md");
  assert.match(recipe, new RegExp(`^GLIBC_TUNABLES=${GLIBC_TUNABLES} PAYLINK_DATA_DIR=\\S+ npx paylink serve$`, "m"));
  const image = read("deploy/Containerfile");
  assert.deepEqual(image.match(/^ENV GLIBC_TUNABLES=.*$/gm), [`ENV GLIBC_TUNABLES=${GLIBC_TUNABLES}`]);
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
