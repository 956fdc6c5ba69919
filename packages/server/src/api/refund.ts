// POST /api/v1/modification/refund (docs/api.md#refund): answered "Received"; the result arrives as
// a Refund webhook and shows on GET /payments/{payfacReference}.
import type { TypedApp } from "../http/typed-app.ts";
import { refundPayment } from "../payments/refund.ts";
import { RefundBody } from "./after-sale-schemas.ts";
import type { ApiDeps } from "./deps.ts";
import { registerModification } from "./modification-route.ts";

export function registerRefund(app: TypedApp, deps: ApiDeps) {
  registerModification(app, deps, {
    path: "/modification/refund",
    operationId: "refundPayment",
    summary: "Refund a payment, in part or in full",
    body: RefundBody,
    modify: refundPayment,
  });
}
