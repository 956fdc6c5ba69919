// GET /api/v1/hostedcheckout/status/{checkoutReference} (docs/api.md#session-status), and POST at
// the same path with its body ignored: older plugin versions post.
import { findSession } from "../db/sessions-repository.ts";
import { AppError } from "../domain/errors.ts";
import { sessionStatus } from "../domain/sessions/status.ts";
import { envelope } from "../http/envelope.ts";
import type { TypedApp } from "../http/typed-app.ts";
import type { ApiDeps } from "./deps.ts";
import { ERROR_RESPONSES } from "./schemas.ts";
import { SessionParams, SessionStatusResponse } from "./session-schemas.ts";

export function registerSessionStatus(app: TypedApp, deps: ApiDeps) {
  for (const method of ["GET", "POST"] as const) {
    app.route({
      method,
      url: "/hostedcheckout/status/:checkoutReference",
      schema: {
        operationId: method === "GET" ? "getHostedCheckoutStatus" : "postHostedCheckoutStatus",
        summary: "Read a hosted-checkout session's status",
        tags: ["Hosted checkout"],
        ...(method === "POST" ? { hide: true } : {}),
        params: SessionParams,
        response: { 200: SessionStatusResponse, ...ERROR_RESPONSES },
      },
      handler: async (request) => {
        const { checkoutReference } = request.params;
        const found = checkoutReference.length <= 64 ? await findSession(deps.db, request.merchantId, checkoutReference) : undefined;
        if (!found) throw new AppError("NotFound", `No session with checkoutReference ${JSON.stringify(checkoutReference)} was found.`);
        const status = sessionStatus(found.session, deps.now());
        // null, never "": WooCommerce tests the field with isset.
        return { status, payfacReference: status === "Completed" ? found.payfacReference : null, ...envelope(request) };
      },
    });
  }
}
