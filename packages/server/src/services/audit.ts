// Recording a change in the audit log (docs/portal.md#audit-log). Every change a merchant's people
// or keys make is written with its entry in one transaction, so a change never commits without its
// entry; "who" arrives as the `actor` the route built (domain/audit/actor.ts).
//
// Use cases with a transaction of their own call recordAudit inside it. A change that is a
// repository call of its own (an API key, a webhook endpoint, a theme, a user) goes through
// changeAndRecord. User and role changes (the portal's user management) record "user.create",
// "user.update", "user.role-change" and "user.remove" the same way, with the user as the object
// and the changed fields' names as details.
import type { Transaction } from "kysely";
import { insertAuditEntry } from "../db/audit-repository.ts";
import type { Database } from "../db/connect.ts";
import type { DB } from "../db/schema.ts";
import type { AuditEvent } from "../domain/audit/entry.ts";

/** Records one entry in the caller's transaction. */
export function recordAudit(trx: Transaction<DB>, event: AuditEvent): Promise<void> {
  return insertAuditEntry(trx, event);
}

/**
 * Runs `change` and records what `entryFor` makes of its result, in one transaction. `entryFor`
 * answers undefined when nothing changed (an unknown object): then nothing is recorded.
 */
export function changeAndRecord<T>(
  db: Database,
  change: (trx: Transaction<DB>) => Promise<T>,
  entryFor: (result: T) => AuditEvent | undefined,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const result = await change(trx);
    const event = entryFor(result);
    if (event) await insertAuditEntry(trx, event);
    return result;
  });
}
