import { createTerminal } from "../db/merchants-repository.ts";
import { checkCurrency } from "../domain/links/terms.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { optionalName, requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { CreateTerminalBody, MerchantParams } from "./schemas.ts";

export function registerCreateTerminal(app: TypedApp, deps: AdminDeps) {
  app.post(
    "/merchants/:merchantId/terminals",
    { schema: { tags: ["Admin"], summary: "Create a terminal", params: MerchantParams, body: CreateTerminalBody } },
    async (request) => {
      const { merchantId } = request.params;
      const body = request.body;
      const currencies = body.currencies ? [...new Set(body.currencies.map(checkCurrency))] : null;
      await requireMerchant(deps.db, merchantId);
      // No name (left out, empty or only spaces) is stored as the column's default, "".
      const terminal = await createTerminal(deps.db, merchantId, optionalName(body.name) ?? "", currencies);
      return { terminalIdentifier: terminal.terminalIdentifier, name: terminal.name, currencies: terminal.currencies };
    },
  );
}
