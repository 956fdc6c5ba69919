// A chargeback or dispute a processor reports on one of Paylink's payments (docs/processors.md#disputes).
import type { DisputeNotification } from "../payments/hosted.ts";
import type { ServiceDeps } from "./deps.ts";

export async function settleNotifiedDispute(deps: ServiceDeps, terminalIdentifier: string, { dispute }: DisputeNotification): Promise<void> {
  deps.log.info({ terminalIdentifier, disputeReference: dispute.disputeReference }, "dispute notification");
}
