// What the tests of the API reference's examples (test/http/openapi-examples*.test.ts) share: a real
// server per describe with the OpenAPI document it serves, the examples looked up by operation, and
// the comparison of an example with a real answer by shape, since the server chooses some values.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import type { TestBackend } from "./databases.ts";
import { startTestServer, type TestServer } from "./harness.ts";

export const JSON_TYPE = "application/json";

/**
 * The same keys at every level (arrays by their first entry), and the same JSON types where neither
 * is null: null stands for any type (nullable fields).
 */
export function assertSameShape(example: unknown, real: unknown, path = "$"): void {
  if (example === null || real === null) return;
  assert.equal(Array.isArray(example), Array.isArray(real), `${path}: array in one, not in the other`);
  if (Array.isArray(example) && Array.isArray(real)) {
    if (example.length > 0 && real.length > 0) assertSameShape(example[0], real[0], `${path}[0]`);
    return;
  }
  assert.equal(typeof example, typeof real, `${path}: ${JSON.stringify(example)} vs ${JSON.stringify(real)}`);
  if (typeof example !== "object") return;
  const [a, b] = [example as Record<string, unknown>, real as Record<string, unknown>];
  assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), `${path}: the example's fields are the real answer's`);
  for (const key of Object.keys(a)) assertSameShape(a[key], b[key], `${path}.${key}`);
}

/**
 * Starts a server on `backend` before the enclosing describe's tests and closes it after them; the
 * server, its document and the lookups are for use inside those tests (set once `before` has run).
 */
export function documentedServer(backend: TestBackend) {
  let server: TestServer;
  let doc: any;
  before(async () => {
    server = await startTestServer({ backend });
    doc = await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json();
  });
  after(() => server?.close());
  const operation = (method: string, path: string) => doc.paths[`/api/v1${path}`][method];
  return {
    get server() {
      return server;
    },
    get doc() {
      return doc;
    },
    /** The value of the named example answer of `method path` with `status`. */
    example: (method: string, path: string, status: number, name: string) =>
      operation(method, path).responses[String(status)].content[JSON_TYPE].examples[name].value,
    /** The value of the named example request body of `method path`. */
    request: (method: string, path: string, name: string) => operation(method, path).requestBody.content[JSON_TYPE].examples[name].value,
  };
}
