// What the checkout's routes need from outside, and what they share once the plugin has started.
import type { Database } from "../db/connect.ts";
import type { RateLimits } from "../http/rate-limit.ts";
import type { AfterSaleProcessor, PaymentProcessor } from "../payments/processor.ts";
import type { ProcessorDirectory } from "../services/processor-directory.ts";
import type { CheckoutBrake } from "./brake.ts";
import type { FirstViewCache } from "./first-view-cache.ts";

export interface CheckoutDeps {
  /** Which pages this instance of the plugin serves: payment links at /pay, sessions at /checkout. */
  kind: "link" | "session";
  db: Database;
  /** Read on every request: a test server learns its port after the app is built. */
  readonly publicBaseUrl: string;
  now: () => Date;
  processor: PaymentProcessor;
  /** Charges a session shopper's saved card; absent, the session page offers none. */
  tokenProcessor?: AfterSaleProcessor;
  /** The real processors of terminals that have one (their checkout sends the shopper to the processor's page). */
  processors: ProcessorDirectory;
  /** Tests shorten it; see DUPLICATE_WAIT_MS. */
  duplicateWaitMs?: number;
  /** None when absent (tests). */
  rateLimits?: RateLimits;
}

export interface CheckoutContext {
  deps: CheckoutDeps;
  /** Signs the form tokens; shared by every instance through the database. */
  formKey: Buffer;
  /** Slows card testing down: counts attempts at the processor, declines and rejected forms per address and link. */
  brake: CheckoutBrake;
  /** Links' checkout pages as first shown, rendered once. */
  firstViews: FirstViewCache;
}
