// What a terminal's processor cannot do for a session captured later (docs/processors.md): the
// sandbox, the live gateway and Adyen authorise for a manual, delayed or adjustable capture alike.
import { AppError } from "../errors.ts";

type CaptureField = "isManualCapture" | "isPreAuth" | "captureHoursDelay";

/**
 * Why a processor refuses a field. Stripe never captures at a set time by itself, and Paylink runs
 * no capture timer (a delayed capture is the processor's, domain/payments/capture.ts); its Checkout
 * page is not asked for incremental authorisation, without which an adjustment is refused.
 */
const CANNOT: Readonly<Record<string, Partial<Record<CaptureField, string>>>> = {
  stripe: {
    captureHoursDelay: "Stripe has no delayed capture; use isManualCapture and capture with /modification/capture.",
    isPreAuth: "Stripe's Checkout is not asked for adjustable authorisations; use isManualCapture and capture the amount wanted.",
  },
};

export function checkSessionOnProcessor(
  processorType: string,
  session: { isManualCapture: boolean; captureHoursDelay: number | null; isPreAuth: boolean },
): void {
  const used: CaptureField[] = [];
  if (session.isManualCapture) used.push("isManualCapture");
  if (session.isPreAuth) used.push("isPreAuth");
  // Ignored with manual capture (docs/api.md#hosted-checkout-sessions): not a use of it.
  if (session.captureHoursDelay !== null && !session.isManualCapture) used.push("captureHoursDelay");
  for (const field of used) {
    const why = CANNOT[processorType]?.[field];
    if (why)
      throw new AppError("UnsupportedValue", `${field} is not supported on a terminal whose processor is ${processorType}. ${why}`).at(
        field,
      );
  }
}
