// Sends generated admin cases (fuzz-admin.ts, fuzz-admin-query.ts, fuzz-admin-reads.ts) over
// node:http and judges each answer: a 4xx in the error envelope, or a 200 where the case may pass;
// and, when `forbidden` is given, no answer at all that holds one of those texts (another
// merchant's identifiers).
import assert from "node:assert/strict";
import { assertErrorShape } from "./fixtures.ts";
import { IN_FLIGHT, inPool, newOutcome, type Outcome, tally } from "./fuzz.ts";
import type { AdminCase } from "./fuzz-admin.ts";
import type { TestServer } from "./harness.ts";
import { type Reply, send } from "./raw-http.ts";

export async function runAdminCases(server: TestServer, cases: AdminCase[], forbidden: readonly string[] = []): Promise<Outcome> {
  const outcome = newOutcome();
  await inPool(cases, IN_FLIGHT, async (c, index) => {
    const headers: Record<string, string> = { ...c.headers };
    if (c.contentType) headers["content-type"] = c.contentType;
    let response: Reply;
    try {
      response = await send(server.baseUrl, c.method, c.path, { body: c.body, headers });
    } catch (error) {
      outcome.failures.push(`#${index} ${c.label}: request failed: ${String(error)}`);
      return;
    }
    const code = typeof response.body === "object" && response.body !== null ? String((response.body as any).errorCode) : "(none)";
    const key = response.status === 200 ? "200" : `${response.status} ${code}`;
    if (c.edge) {
      outcome.edgeCodes ??= new Map();
      outcome.edgeCodes.set(key, (outcome.edgeCodes.get(key) ?? 0) + 1);
    } else {
      outcome.sent++;
      tally(outcome, key);
    }
    const leaked = forbidden.find((text) => response.text.includes(text));
    if (leaked)
      outcome.failures.push(`#${index} ${c.label}: the answer holds another merchant's ${leaked} — ${c.method} ${c.path.slice(0, 150)}`);
    if (response.status === 200 && c.mayPass) {
      outcome.successes++;
      return;
    }
    try {
      assert.ok(
        response.status >= 400 && response.status < 500,
        `status ${response.status} is not 4xx${response.status === 200 ? " (and the case was certainly invalid)" : ""}`,
      );
      assertErrorShape(response);
    } catch (error) {
      const sent = c.body ? c.body.subarray(0, 200).toString("utf8") : "(no body)";
      outcome.failures.push(
        `#${index} ${c.label}: ${(error as Error).message.split("\n")[0]} — got ${response.status} ${response.text.slice(0, 200)} — ${c.method} ${c.path.slice(0, 150)} — sent ${sent}`,
      );
    }
  });
  return outcome;
}
