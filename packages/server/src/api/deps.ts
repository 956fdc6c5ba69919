import type { Database } from "../db/connect.ts";
import type { AfterSaleProcessor } from "../payments/processor.ts";
import type { ProcessorDirectory } from "../services/processor-directory.ts";

/** What the API operations need from the outside world; tests pass their own clock. */
export interface ApiDeps {
  db: Database;
  publicBaseUrl: string;
  now: () => Date;
  /** Charges saved cards, refunds and reverses (docs/api.md#saved-cards-and-refunds). */
  processor: AfterSaleProcessor;
  /** A terminal's real processor, which modifies the payments it took instead. */
  processors: ProcessorDirectory;
  /** Requests per minute per API key; 0 or absent: no limit. */
  apiRateLimitPerMinute?: number;
  /** Count that limit in the database, shared by every instance on it (PostgreSQL), not in this instance's memory. */
  sharedRateLimit?: boolean;
}
