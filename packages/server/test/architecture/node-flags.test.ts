// Every way of starting Paylink gives Node the same heap flags (D-255): a place that lost them would
// run with V8's defaults and peak about 90 MB higher under load, and nothing else would show it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { NODE_HEAP_FLAGS } from "../../src/node-flags.ts";

const repository = new URL("../../../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, repository), "utf8");
const flags = NODE_HEAP_FLAGS.join(" ");

test("the paylink command, npm start, the systemd unit and the Containerfile start Node with the heap flags", () => {
  assert.equal(read("packages/server/bin/paylink.mjs").split("\n")[0], `#!/usr/bin/env -S node ${flags}`);
  const rootStart = JSON.parse(read("package.json")).scripts.start as string;
  assert.ok(rootStart.includes(`node ${flags} packages/server/bin/paylink.mjs serve`), rootStart);
  const serverStart = JSON.parse(read("packages/server/package.json")).scripts.start as string;
  assert.equal(serverStart, `node ${flags} ./bin/paylink.mjs serve`);
  assert.match(read("deploy/paylink.service"), new RegExp(`^ExecStart=/usr/bin/node ${flags} /opt/paylink/`, "m"));
  const command = NODE_HEAP_FLAGS.map((flag) => `"${flag}"`).join(", ");
  assert.ok(read("deploy/Containerfile").includes(`CMD ["node", ${command}, "packages/server/bin/paylink.mjs", "serve"]`));
});
