// GET /api/v1/payments/{payfacReference} (docs/api.md#read-a-payment): a link sale or a token
// payment or a session's payment of this merchant, with its refunds, (captured later) its captures, and its disputes.
import { capturesOf, readBalance } from "../db/captures-repository.ts";
import { disputesOf } from "../db/disputes-repository.ts";
import { findPayment } from "../db/payments-repository.ts";
import { refundsOf } from "../db/refunds-repository.ts";
import { AppError } from "../domain/errors.ts";
import { capturedAmount, untouchedBalance } from "../domain/payments/capture.ts";
import { envelope } from "../http/envelope.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { GetPaymentResponse, PaymentParams } from "./after-sale-schemas.ts";
import type { ApiDeps } from "./deps.ts";
import { type CaptureView, presentPayment } from "./present-payment.ts";
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
      const [refunds, disputes] = await Promise.all([
        refundsOf(deps.db, request.merchantId, payfacReference),
        disputesOf(deps.db, request.merchantId, payfacReference),
      ]);
      let capture: CaptureView | undefined;
      if (payment.capture) {
        const terms = { ...payment, capture: payment.capture };
        const balance = (await readBalance(deps.db, payfacReference)) ?? untouchedBalance(terms);
        const captures = await capturesOf(deps.db, request.merchantId, payfacReference);
        capture = { authorisedAmount: balance.amount, capturedAmount: capturedAmount(balance, deps.now()), captures };
      }
      return { payment: presentPayment(payment, refunds, disputes, capture), ...envelope(request) };
    },
  );
}
