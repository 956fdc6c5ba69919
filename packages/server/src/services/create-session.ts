// Create a hosted-checkout session (docs/api.md#hosted-checkout-sessions): the session rules
// (domain/sessions), the merchant's terminal and theme, and the row that makes it a one-sale link.
import type { Transaction } from "kysely";
import type { KeyedEffect } from "../db/idempotency-repository.ts";
import type { DB } from "../db/schema.ts";
import { insertSession } from "../db/sessions-repository.ts";
import type { Actor } from "../domain/audit/actor.ts";
import { checkSessionOnProcessor } from "../domain/processors/supported.ts";
import { sessionFromCreateRequest } from "../domain/sessions/create.ts";
import type { CreateSessionRequest } from "../domain/sessions/types.ts";
import { newSessionReference } from "../ids.ts";
import { recordAudit } from "./audit.ts";
import type { ServiceDeps } from "./deps.ts";
import { checkTheme, terminalAccepting } from "./merchant-references.ts";

/** The new session's checkoutReference. `keyed`: the Idempotency-Key's answer, committed with the session and its audit entry. */
export async function createSession(
  deps: ServiceDeps,
  merchantId: string,
  actor: Actor,
  request: CreateSessionRequest,
  keyed?: KeyedEffect<string>,
): Promise<string> {
  const { terms, session } = sessionFromCreateRequest(request, deps.now());
  const reference = newSessionReference();
  const insert = async (db: Transaction<DB>) => {
    const terminal = await terminalAccepting(db, merchantId, terms.terminalIdentifier, terms.currency);
    checkSessionOnProcessor(terminal.processorType, session);
    await checkTheme(db, merchantId, terms.themeKey);
    await insertSession(db, reference, merchantId, terms, session);
    await recordAudit(db, {
      merchantId,
      actor,
      action: "session.create",
      object: { type: "session", id: reference },
      details: { amount: terms.amount, currency: terms.currency, orderReference: session.orderReference },
    });
  };
  // The session and its audit-log entry commit together (docs/portal.md#audit-log).
  await deps.db.transaction().execute(async (trx) => {
    await insert(trx);
    await keyed?.answered(trx, reference);
  });
  deps.log.info({ checkoutReference: reference }, "hosted-checkout session created");
  return reference;
}
