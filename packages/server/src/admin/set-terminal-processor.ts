// PUT /admin/v1/merchants/{id}/terminals/{terminalIdentifier}/processor: replaces the terminal's
// processor configuration as a whole, secrets included (docs/processors.md#configuring-a-terminal).
// The answer shows it as listings do: secrets masked.
import { AppError } from "../domain/errors.ts";
import { processorConfigFrom } from "../domain/processors/processor-settings.ts";
import { adminActor } from "../http/actor.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { processorView, processorWebhookUrl } from "../payments/processor-config.ts";
import { setTerminalProcessor } from "../services/terminal-processor.ts";
import { requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { SetTerminalProcessorBody, TerminalParams } from "./schemas.ts";

export function registerSetTerminalProcessor(app: TypedApp, deps: AdminDeps) {
  app.put(
    "/merchants/:merchantId/terminals/:terminalIdentifier/processor",
    {
      schema: {
        tags: ["Admin"],
        summary: "Set a terminal's payment processor (secrets shown masked)",
        params: TerminalParams,
        body: SetTerminalProcessorBody,
      },
    },
    async (request) => {
      const { merchantId, terminalIdentifier } = request.params;
      const processor = processorConfigFrom(request.body.processor, { allowBaseUrl: deps.allowProcessorBaseUrls });
      await requireMerchant(deps.db, merchantId);
      const found = await setTerminalProcessor(deps, { merchantId, actor: adminActor(request) }, terminalIdentifier, processor);
      // Another merchant's terminal is reported exactly like one that does not exist.
      if (!found) throw new AppError("NotFound", `No terminal ${JSON.stringify(terminalIdentifier)} for this merchant.`);
      return {
        terminalIdentifier,
        processor: processorView(processor),
        webhookUrl: processorWebhookUrl(deps.publicBaseUrl, terminalIdentifier),
      };
    },
  );
}
