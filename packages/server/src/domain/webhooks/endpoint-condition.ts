// What a merchant is told about a webhook endpoint at a glance: one rule for the developers list
// and the endpoint's page.

export interface EndpointHealth {
  /** Deliveries still to be sent after at least one failed attempt. */
  retrying: number;
  /** When the oldest of those was made: the endpoint has been failing at least since then. */
  failingSince: Date | null;
  nextRetryAt: Date | null;
  /** Deliveries given up on (every attempt failed) lately. */
  gaveUp: number;
  /** The breaker holds deliveries back until then: the endpoint stopped answering. */
  pausedUntil: Date | null;
}

export type EndpointCondition = "disabled" | "paused" | "failing" | "healthy";

export function endpointCondition(enabled: boolean, health: EndpointHealth | undefined): EndpointCondition {
  if (!enabled) return "disabled";
  if (health?.pausedUntil) return "paused";
  if (health && (health.retrying > 0 || health.gaveUp > 0)) return "failing";
  return "healthy";
}
