// GET /api/v1/paymentlinks/{reference} (docs/api.md#read)
import { findLinkWithSubmissions } from "../db/link-with-submissions-repository.ts";
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
      const found = reference.length <= 64 ? await findLinkWithSubmissions(deps.db, request.merchantId, reference) : undefined;
      if (!found) throw notFound(reference);
      return { paymentLink: presentLink(found.link, found.submissions, deps.publicBaseUrl, deps.now()), ...envelope(request) };
    },
  );
}

export function notFound(reference: string): AppError {
  return new AppError("NotFound", `No payment link with paymentLinkReference ${JSON.stringify(reference)} was found.`);
}
