// Create a payment link (docs/api.md#create): the link rules (domain/links) and the checks against
// the merchant's terminal and theme, for the API and the portal's form alike. The link and its
// audit-log entry are written together (docs/portal.md#audit-log).
import type { Transaction } from "kysely";
import type { KeyedEffect } from "../db/idempotency-repository.ts";
import { insertLink, insertLinkIfReferencesValid } from "../db/links-repository.ts";
import type { DB } from "../db/schema.ts";
import type { Actor } from "../domain/audit/actor.ts";
import type { AuditEvent } from "../domain/audit/entry.ts";
import { type CreateLinkRequest, termsFromCreateRequest } from "../domain/links/create.ts";
import { newLinkReference } from "../ids.ts";
import { recordAudit } from "./audit.ts";
import type { ServiceDeps } from "./deps.ts";
import { checkTheme, terminalAccepting } from "./merchant-references.ts";

/** The new link's reference. `keyed`: the Idempotency-Key's answer, committed with the link (a transaction only then). */
export async function createLink(
  deps: ServiceDeps,
  merchantId: string,
  actor: Actor,
  request: CreateLinkRequest,
  keyed?: KeyedEffect<string>,
): Promise<string> {
  const terms = termsFromCreateRequest(request, deps.now());
  const reference = newLinkReference();
  const audit: AuditEvent = {
    merchantId,
    actor,
    action: "link.create",
    object: { type: "payment-link", id: reference },
    details: { type: terms.type, amount: terms.amount, currency: terms.currency },
  };
  const insert = async (trx?: Transaction<DB>) => {
    const db = trx ?? deps.db;
    // One round trip when the terminal and theme are right; otherwise the checks report which is wrong.
    if (await insertLinkIfReferencesValid(db, reference, merchantId, terms, audit)) return;
    await terminalAccepting(db, merchantId, terms.terminalIdentifier, terms.currency);
    await checkTheme(db, merchantId, terms.themeKey);
    // Rare: the references became valid between the two reads. The link and its entry still go together.
    const linkWithEntry = async (t: Transaction<DB>) => {
      await insertLink(t, reference, merchantId, terms);
      await recordAudit(t, audit);
    };
    if (trx) await linkWithEntry(trx);
    else await deps.db.transaction().execute(linkWithEntry);
  };
  if (!keyed) await insert();
  else
    await deps.db.transaction().execute(async (trx) => {
      await insert(trx);
      await keyed.answered(trx, reference);
    });
  deps.log.info({ paymentLinkReference: reference }, "payment link created");
  return reference;
}
