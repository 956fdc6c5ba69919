// POST /api/v1/paymentlinks/create (docs/api.md#create)
import { insertLink, insertLinkIfReferencesValid } from "../db/links-repository.ts";
import { termsFromCreateRequest } from "../domain/links/create.ts";
import { linkUrl } from "../domain/links/url.ts";
import { envelope } from "../http/envelope.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { newLinkReference } from "../ids.ts";
import { checkTerminalAndCurrency, checkTheme } from "./check-references.ts";
import type { ApiDeps } from "./deps.ts";
import { CreateLinkBody, CreateLinkResponse, ERROR_RESPONSES } from "./schemas.ts";

export function registerCreateLink(app: TypedApp, deps: ApiDeps) {
  app.post(
    "/paymentlinks/create",
    {
      schema: {
        operationId: "createPaymentLink",
        summary: "Create a payment link",
        tags: ["Payment links"],
        body: CreateLinkBody,
        response: { 200: CreateLinkResponse, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const terms = termsFromCreateRequest(request.body, deps.now());
      const reference = newLinkReference();
      // One round trip when the terminal and theme are right; otherwise the checks report which is wrong.
      if (!(await insertLinkIfReferencesValid(deps.db, reference, request.merchantId, terms))) {
        await checkTerminalAndCurrency(deps.db, request.merchantId, terms);
        await checkTheme(deps.db, request.merchantId, terms.themeKey);
        await insertLink(deps.db, reference, request.merchantId, terms);
      }
      request.log.info({ paymentLinkReference: reference }, "payment link created");
      return { paymentLinkReference: reference, url: linkUrl(deps.publicBaseUrl, reference), ...envelope(request) };
    },
  );
}
