// What a terminal with a real processor can do in this version (docs/processors.md#what-is-not-done-yet).
import { AppError } from "../errors.ts";

/** Processors whose hosted page authorises for a later capture (manual, delayed or adjustable), as the sandbox does. */
const CAPTURES_LATER: readonly string[] = ["sandbox", "straumur"];

/** A session on another processor's terminal captures with its authorisation, as that processor's page does here. */
export function checkSessionOnProcessor(
  processorType: string,
  session: { isManualCapture: boolean; captureHoursDelay: number | null; isPreAuth: boolean },
): void {
  if (CAPTURES_LATER.includes(processorType)) return;
  const field = session.isManualCapture
    ? "isManualCapture"
    : session.isPreAuth
      ? "isPreAuth"
      : session.captureHoursDelay !== null
        ? "captureHoursDelay"
        : null;
  if (field === null) return;
  throw new AppError(
    "UnsupportedValue",
    `${field} is not supported yet on a terminal whose processor is ${processorType}; leave it out to capture with the authorisation.`,
  ).at(field);
}
