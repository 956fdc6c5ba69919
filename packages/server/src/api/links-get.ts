// GET /api/v1/paymentlinks/{reference} (docs/api.md#read)
import { findLink, listSubmissions } from "../db/links-repository.ts";
import { refundedAmounts } from "../db/refunds-repository.ts";
import { AppError } from "../domain/errors.ts";
import { envelope } from "../http/envelope.ts";
import type { TypedApp } from "../http/typed-app.ts";
import type { ApiDeps } from "./deps.ts";
import { presentLink } from "./present-link.ts";
import { ERROR_RESPONSES, GetLinkResponse, ReferenceParams } from "./schemas.ts";

export function registerGetLink(app: TypedApp, deps: ApiDeps) {
  app.get(
    "/paymentlinks/:reference",
    {
      schema: {
        operationId: "getPaymentLink",
        summary: "Read a payment link with its counters and submissions",
        tags: ["Payment links"],
        params: ReferenceParams,
        response: { 200: GetLinkResponse, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { reference } = request.params;
      // References are at most 64 characters; a longer one is not looked up.
      const link = reference.length <= 64 ? await findLink(deps.db, request.merchantId, reference) : undefined;
      if (!link) throw notFound(reference);
      const submissions = await listSubmissions(deps.db, reference);
      const refunded = await refundedAmounts(
        deps.db,
        submissions.flatMap((s) => (s.payfacReference ? [s.payfacReference] : [])),
      );
      return { paymentLink: presentLink(link, submissions, deps.publicBaseUrl, deps.now(), refunded), ...envelope(request) };
    },
  );
}

export function notFound(reference: string): AppError {
  return new AppError("NotFound", `No payment link with paymentLinkReference ${JSON.stringify(reference)} was found.`);
}
