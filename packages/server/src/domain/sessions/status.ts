// A session's status (docs/api.md#session-status), read from the one link status rule: a session is
// a one-sale link, so "sold" (or "card saved") is Completed, and stays so after it expires.
import { linkStatus, type StatusSource } from "../links/status.ts";
import type { SessionStatus } from "./types.ts";

export function sessionStatus(session: StatusSource, now: Date): SessionStatus {
  switch (linkStatus(session, now)) {
    case "Active":
      return "New";
    case "Used":
    case "Completed":
      return "Completed";
    // A session cannot be disabled; were one, it takes no payment, as an expired one.
    case "Disabled":
    case "Expired":
      return "Expired";
  }
}
