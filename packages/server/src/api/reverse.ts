// POST /api/v1/modification/reverse (docs/api.md#reverse): cancel, or refund whatever is not yet
// refunded; answered "Received", the result arrives as a Refund webhook.
import type { TypedApp } from "../http/typed-app.ts";
import { reversePayment } from "../payments/reverse.ts";
import { ReverseBody } from "./after-sale-schemas.ts";
import type { ApiDeps } from "./deps.ts";
import { registerModification } from "./modification-route.ts";

export function registerReverse(app: TypedApp, deps: ApiDeps) {
  registerModification(app, deps, {
    path: "/modification/reverse",
    operationId: "reversePayment",
    summary: "Reverse a payment: cancel it, or refund what is not yet refunded",
    body: ReverseBody,
    modify: reversePayment,
  });
}
