// Audit-log helpers for tests: an entry for statements that need one, and the entries a merchant has.
import { sql } from "kysely";
import type { Database } from "../../src/db/connect.ts";
import { operatorActor } from "../../src/domain/audit/actor.ts";
import type { AuditEvent } from "../../src/domain/audit/entry.ts";

/** The audit entry of a link created by the operator from the local address. */
export function linkCreated(merchantId: string, reference: string): AuditEvent {
  return { merchantId, actor: operatorActor("127.0.0.1"), action: "link.create", object: { type: "payment-link", id: reference } };
}

export interface StoredAuditRow {
  actor_kind: string;
  actor_id: string | null;
  actor_label: string;
  action: string;
  object_type: string;
  object_id: string;
  address: string | null;
  details: Record<string, unknown>;
  created_at: Date;
}

/** The merchant's entries, oldest first (straight from the table, not through the code under test). */
export async function auditRowsOf(db: Database, merchantId: string): Promise<StoredAuditRow[]> {
  const { rows } = await sql<StoredAuditRow>`
    SELECT actor_kind, actor_id, actor_label, action, object_type, object_id, address, details, created_at
    FROM audit_log WHERE merchant_id = ${merchantId} ORDER BY id`.execute(db);
  return rows;
}

/** Cells of an RFC 4180 text (quoted cells may hold the separator, quotes and line breaks). */
export function parseCsv(text: string, separator: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === separator) {
      row.push(cell);
      cell = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += c;
  }
  if (cell !== "" || row.length > 0) rows.push([...row, cell]);
  return rows;
}
