// Create a payment link (docs/api.md#create): the link rules (domain/links) and the checks against
// the merchant's terminal and theme, for the API and the portal's form alike.
import type { Database } from "../db/connect.ts";
import type { KeyedEffect } from "../db/idempotency-repository.ts";
import { insertLink, insertLinkIfReferencesValid } from "../db/links-repository.ts";
import { type CreateLinkRequest, termsFromCreateRequest } from "../domain/links/create.ts";
import { newLinkReference } from "../ids.ts";
import type { ServiceDeps } from "./deps.ts";
import { checkTheme, terminalAccepting } from "./merchant-references.ts";

/** The new link's reference. `keyed`: the Idempotency-Key's answer, committed with the link (a transaction only then). */
export async function createLink(
  deps: ServiceDeps,
  merchantId: string,
  request: CreateLinkRequest,
  keyed?: KeyedEffect<string>,
): Promise<string> {
  const terms = termsFromCreateRequest(request, deps.now());
  const reference = newLinkReference();
  const insert = async (trx: Database) => {
    // One round trip when the terminal and theme are right; otherwise the checks report which is wrong.
    if (!(await insertLinkIfReferencesValid(trx, reference, merchantId, terms))) {
      await terminalAccepting(trx, merchantId, terms.terminalIdentifier, terms.currency);
      await checkTheme(trx, merchantId, terms.themeKey);
      await insertLink(trx, reference, merchantId, terms);
    }
  };
  if (!keyed) await insert(deps.db);
  else
    await deps.db.transaction().execute(async (trx) => {
      await insert(trx);
      await keyed.answered(trx, reference);
    });
  deps.log.info({ paymentLinkReference: reference }, "payment link created");
  return reference;
}
