// What a terminal with a real processor can do in this version (docs/processors.md#what-is-not-done-yet).
// Payments on the processor's page are supported; what happens after the sale still goes through
// the sandbox's path, so it is refused here rather than sent to a processor that never saw the
// payment: a refund "made" by the sandbox would move no money.
import { AppError } from "../errors.ts";

/** Refunds, reversals, captures and token charges: only on sandbox terminals for now. */
export function requireSandboxAfterSale(processorType: string, what: string): void {
  if (processorType === "sandbox") return;
  throw new AppError(
    "StateConflict",
    `${what} of payments taken through the ${processorType} processor are not supported by Paylink yet; make them in the processor's own portal.`,
  );
}

/** A session on a real processor's terminal captures with its authorisation, as the processor's page does. */
export function checkSessionOnProcessor(
  processorType: string,
  session: { isManualCapture: boolean; captureHoursDelay: number | null; isPreAuth: boolean },
): void {
  if (processorType === "sandbox") return;
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
