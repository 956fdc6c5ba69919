// What the after-sale services (token charges, refunds, reversals, token disable) need: plain
// values, so the API handlers, the merchant portal and the reconciler can all call them.
import type { FastifyBaseLogger } from "fastify";
import type { Database } from "../db/connect.ts";
import type { AfterSaleProcessor } from "./processor.ts";

export interface AfterSaleDeps {
  db: Database;
  processor: AfterSaleProcessor;
  log: Pick<FastifyBaseLogger, "info" | "warn" | "error">;
}

/** How long a request waits for the processor: far below the reconcilers' time-outs. */
export const AFTER_SALE_PROCESSOR_TIMEOUT_MS = 30_000;
