// POST /admin/v1/merchants/{id}/terminals: a new terminal, on the sandbox unless `processor` says
// otherwise (docs/processors.md#configuring-a-terminal); its secrets are never shown back.

import { checkCurrency } from "../domain/links/terms.ts";
import { processorConfigFrom } from "../domain/processors/processor-settings.ts";
import { adminActor } from "../http/actor.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { processorView } from "../payments/processor-config.ts";
import { addTerminal } from "../services/terminal-processor.ts";
import { optionalName, requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { presentTerminal } from "./present-merchants.ts";
import { CreateTerminalBody, MerchantParams } from "./schemas.ts";

export function registerCreateTerminal(app: TypedApp, deps: AdminDeps) {
  app.post(
    "/merchants/:merchantId/terminals",
    { schema: { tags: ["Admin"], summary: "Create a terminal", params: MerchantParams, body: CreateTerminalBody } },
    async (request) => {
      const { merchantId } = request.params;
      const body = request.body;
      const currencies = body.currencies ? [...new Set(body.currencies.map(checkCurrency))] : null;
      const processor = body.processor
        ? processorConfigFrom(body.processor, { allowBaseUrl: deps.allowProcessorBaseUrls })
        : { type: "sandbox" as const };
      await requireMerchant(deps.db, merchantId);
      // No name (left out, empty or only spaces) is stored as the column's default, "".
      const terminal = await addTerminal(
        deps,
        { merchantId, actor: adminActor(request) },
        { name: optionalName(body.name) ?? "", currencies, processor },
      );
      return presentTerminal(terminal, processorView(processor), deps.publicBaseUrl);
    },
  );
}
