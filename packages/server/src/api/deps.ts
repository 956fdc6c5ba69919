import type { Database } from "../db/connect.ts";

/** What the API operations need from the outside world; tests pass their own clock. */
export interface ApiDeps {
  db: Database;
  publicBaseUrl: string;
  now: () => Date;
}

export function linkUrl(publicBaseUrl: string, reference: string): string {
  return `${publicBaseUrl}/pay/${encodeURIComponent(reference)}`;
}
