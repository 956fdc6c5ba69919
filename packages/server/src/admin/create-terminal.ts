import type { FastifyInstance } from "fastify";
import { createTerminal } from "../db/merchants-repository.ts";
import { checkCurrency } from "../domain/links/terms.ts";
import { type AdminDeps, optionalName, requireMerchant } from "./index.ts";
import { CreateTerminalBody, MerchantParams } from "./schemas.ts";

export function registerCreateTerminal(app: FastifyInstance, deps: AdminDeps) {
  app.post(
    "/merchants/:merchantId/terminals",
    { schema: { tags: ["Admin"], summary: "Create a terminal", params: MerchantParams, body: CreateTerminalBody } },
    async (request) => {
      const { merchantId } = request.params as { merchantId: string };
      const body = request.body as { name?: string; currencies?: string[] };
      const currencies = body.currencies ? [...new Set(body.currencies.map(checkCurrency))] : null;
      await requireMerchant(deps.db, merchantId);
      // No name (left out, empty or only spaces) is stored as the column's default, "".
      const terminal = await createTerminal(deps.db, merchantId, optionalName(body.name) ?? "", currencies);
      return { terminalIdentifier: terminal.terminalIdentifier, name: terminal.name, currencies: terminal.currencies };
    },
  );
}
