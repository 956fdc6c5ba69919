// GET /api/v1/payments/{payfacReference} (docs/api.md#read-a-payment): a link sale or a token
// payment of this merchant, with its refunds.
import { findPayment } from "../db/payments-repository.ts";
import { refundsOf } from "../db/refunds-repository.ts";
import { AppError } from "../domain/errors.ts";
import { envelope } from "../http/envelope.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { GetPaymentResponse, PaymentParams } from "./after-sale-schemas.ts";
import type { ApiDeps } from "./deps.ts";
import { presentPayment } from "./present-payment.ts";
import { ERROR_RESPONSES } from "./schemas.ts";

export function registerGetPayment(app: TypedApp, deps: ApiDeps) {
  app.get(
    "/payments/:payfacReference",
    {
      schema: {
        operationId: "getPayment",
        summary: "Read a payment with its refunds",
        tags: ["Saved cards and refunds"],
        params: PaymentParams,
        response: { 200: GetPaymentResponse, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { payfacReference } = request.params;
      const payment = payfacReference.length <= 64 ? await findPayment(deps.db, request.merchantId, payfacReference) : undefined;
      if (!payment) throw new AppError("NotFound", `No payment with payfacReference ${JSON.stringify(payfacReference)} was found.`);
      const refunds = await refundsOf(deps.db, request.merchantId, payfacReference);
      return { payment: presentPayment(payment, refunds), ...envelope(request) };
    },
  );
}
