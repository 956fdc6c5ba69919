import type { Database } from "../db/connect.ts";
import type { AfterSaleProcessor } from "../payments/processor.ts";

/** What the API operations need from the outside world; tests pass their own clock. */
export interface ApiDeps {
  db: Database;
  publicBaseUrl: string;
  now: () => Date;
  /** Charges saved cards, refunds and reverses (docs/api.md#saved-cards-and-refunds). */
  processor: AfterSaleProcessor;
  /** Requests per minute per API key; 0 or absent: no limit. */
  apiRateLimitPerMinute?: number;
}
