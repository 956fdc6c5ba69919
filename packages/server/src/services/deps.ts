// What every use case needs from the process. The API's handlers, the checkout's routes and the
// portal's pages all build one of these and call the same use case, so a rule lives in one place.
import type { FastifyBaseLogger } from "fastify";
import type { Database } from "../db/connect.ts";
import type { AfterSaleProcessor, PaymentProcessor } from "../payments/processor.ts";
import type { ProcessorDirectory } from "./processor-directory.ts";

export interface ServiceDeps {
  db: Database;
  now: () => Date;
  log: Pick<FastifyBaseLogger, "info" | "warn" | "error">;
}

/** A use case that calls the processor for the checkout (payments and card saves). */
export interface CheckoutServiceDeps extends ServiceDeps {
  processor: PaymentProcessor;
  /**
   * Charges a session shopper's saved card as the session's payment (the processor of saved-card
   * charges); absent, no saved card is offered.
   */
  tokenProcessor?: AfterSaleProcessor | undefined;
}

/** A use case that calls the processor after the sale (token charges, refunds, reversals). */
export interface AfterSaleServiceDeps extends ServiceDeps {
  /** The sandbox's: for payments taken on sandbox terminals. */
  processor: AfterSaleProcessor;
  /** The real processors': each payment is modified by the processor of the terminal that took it. */
  processors: Pick<ProcessorDirectory, "afterSaleFor">;
  /** Paylink's own address: a saved-card charge's shopper may come back to it from 3-D Secure. */
  publicBaseUrl: string;
}

/** How long an after-sale request waits for the processor: far below the reconcilers' time-outs. */
export const AFTER_SALE_PROCESSOR_TIMEOUT_MS = 30_000;
