// GET /admin/v1/merchants/{id}/terminals: the merchant's terminals, oldest first, each with its
// processor (secrets masked) and the address to register at that processor for its notifications.
import { listTerminals } from "../db/merchant-reads-repository.ts";
import { terminalProcessorViews } from "../db/terminal-processors-repository.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { presentTerminal } from "./present-merchants.ts";
import { MerchantParams } from "./schemas.ts";

export function registerListTerminals(app: TypedApp, deps: AdminDeps) {
  app.get(
    "/merchants/:merchantId/terminals",
    { schema: { tags: ["Admin"], summary: "List a merchant's terminals", params: MerchantParams } },
    async (request) => {
      const { merchantId } = request.params;
      await requireMerchant(deps.db, merchantId);
      const [items, processors] = await Promise.all([
        listTerminals(deps.db, merchantId),
        terminalProcessorViews(deps.db, deps.keyring, merchantId),
      ]);
      return {
        data: items.map((terminal) =>
          presentTerminal(terminal, processors.get(terminal.terminalIdentifier) ?? { type: "sandbox" }, deps.publicBaseUrl),
        ),
      };
    },
  );
}
