// What the plan tests share: a plan as EXPLAIN (FORMAT JSON) gives it, and work run in a
// transaction that is always rolled back (EXPLAIN ANALYZE runs the statement).
import type { Kysely } from "kysely";
import type { DB } from "../../src/db/schema.ts";

export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  "Rows Removed by Join Filter"?: number;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  Plans?: PlanNode[];
}

/** The rows a step touched over all its loops: those it returned and those its conditions removed. */
export function rowsTouched(node: PlanNode): number {
  return (
    ((node["Actual Rows"] ?? 0) +
      (node["Rows Removed by Filter"] ?? 0) +
      (node["Rows Removed by Index Recheck"] ?? 0) +
      (node["Rows Removed by Join Filter"] ?? 0)) *
    (node["Actual Loops"] ?? 1)
  );
}

/** The top step of EXPLAIN (FORMAT JSON)'s answer (a string on PGlite, parsed JSON on pg). */
export function parsePlan(rows: Record<string, unknown>[]): PlanNode {
  const cell = Object.values(rows[0]!)[0];
  const document = (typeof cell === "string" ? JSON.parse(cell) : cell) as { Plan: PlanNode }[];
  return document[0]!.Plan;
}

class RolledBack extends Error {}

/** Runs `work` in a transaction of `db` that is always rolled back; its result survives. */
export async function rolledBack<T>(db: Kysely<DB>, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  let result: T | undefined;
  await db
    .transaction()
    .execute(async (trx) => {
      result = await work(trx);
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  return result as T;
}
