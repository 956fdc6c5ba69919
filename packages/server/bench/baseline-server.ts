// The baselines Paylink is measured against, as a process of their own (like Paylink). GET /healthz
// answers {"status":"ok"}: a bare Fastify route, the per-request toll of Fastify itself; and
//   pg     — the smallest Fastify + pg program doing the database work of a create and a get:
//            one INSERT of the JSON body into a table with a unique text reference, one
//            primary-key SELECT (a pool of 10 connections, Paylink's default);
//   pglite — the same program on PGlite with an on-disk data directory.
//
//   tsx baseline-server.ts <pg|pglite> <postgres URL or data dir> <port>
import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import Fastify from "fastify";
import pg from "pg";

type Query = (text: string, values?: unknown[]) => Promise<unknown[]>;

const [mode, target, port] = process.argv.slice(2) as [string, string, string];

async function openQuery(): Promise<Query> {
  if (mode === "pg") {
    const pool = new pg.Pool({ connectionString: target, max: 10 });
    return async (text, values) => (await pool.query(text, values)).rows;
  }
  const pglite = await PGlite.create(target);
  return async (text, values) => (await pglite.query(text, values)).rows;
}

const app = Fastify({ logger: false });
app.get("/healthz", async () => ({ status: "ok" }));
const query = await openQuery();
await query(
  "CREATE TABLE IF NOT EXISTS bench_items (reference text PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())",
);
app.post("/items", async (request) => {
  const reference = randomBytes(12).toString("base64url");
  await query("INSERT INTO bench_items (reference, body) VALUES ($1, $2)", [reference, JSON.stringify(request.body)]);
  return { reference };
});
app.get<{ Params: { reference: string } }>("/items/:reference", async (request, reply) => {
  const rows = await query("SELECT reference, body, created_at FROM bench_items WHERE reference = $1", [request.params.reference]);
  return rows[0] ?? reply.code(404).send({ error: "not found" });
});
await app.listen({ port: Number(port), host: "127.0.0.1" });
process.stdout.write("ready\n");
process.once("SIGTERM", () => void app.close().then(() => process.exit(0)));
