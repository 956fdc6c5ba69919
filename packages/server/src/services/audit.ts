// Recording a change in the audit log (docs/portal.md#audit-log). Every use case that changes a
// merchant's data calls this with the transaction of the change, so a change never commits without
// its entry; "who" arrives as the `actor` the route built (domain/audit/actor.ts). User and role
// changes (the portal's user management) record "user.create", "user.update", "user.role-change"
// and "user.remove" the same way, with the user as the object and the changed fields as details.
import type { Transaction } from "kysely";
import { insertAuditEntry } from "../db/audit-repository.ts";
import type { Database } from "../db/connect.ts";
import type { DB } from "../db/schema.ts";
import type { AuditEvent } from "../domain/audit/entry.ts";

/** Pass the change's transaction; a plain handle only where the change is itself one statement before this one. */
export function recordAudit(db: Transaction<DB> | Database, event: AuditEvent): Promise<void> {
  return insertAuditEntry(db, event);
}
