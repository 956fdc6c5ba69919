// The audit log as a CSV file (docs/portal.md#audit-log), by the payments CSV's conventions
// (portal/payments-csv.ts): UTF-8 with a byte-order mark, ";" between cells on an Icelandic page
// and "," on an English one, RFC 4180 quoting, times in UTC. Written a batch at a time, like that file.
import { Readable } from "node:stream";
import { type AuditCursor, type AuditEntry, type AuditFilter, auditEntriesAfter } from "../db/audit-repository.ts";
import type { Database } from "../db/connect.ts";
import type { Lang } from "../web/i18n.ts";
import { type CsvFormat, csvCell, csvFormat } from "./payments-csv.ts";

export const AUDIT_CSV_HEADER = ["time", "actorKind", "actor", "actorId", "action", "objectType", "objectId", "address", "details"];

const BYTE_ORDER_MARK = "\uFEFF";
const BATCH = 500;

export function auditCsvRow(entry: AuditEntry, format: CsvFormat): string {
  return [
    entry.createdAt.toISOString(),
    entry.actorKind,
    entry.actorLabel,
    entry.actorId ?? "",
    entry.action,
    entry.objectType,
    entry.objectId,
    entry.address ?? "",
    JSON.stringify(entry.details),
  ]
    .map((cell) => csvCell(cell, format.separator))
    .join(format.separator);
}

/** The file as a stream; the first batch is read first, so a database that cannot answer gets the error page. */
export async function auditCsv(db: Database, merchantId: string, filter: AuditFilter, lang: Lang, batchSize = BATCH): Promise<Readable> {
  const format = csvFormat(lang);
  const readBatch = async (after: AuditCursor | undefined) => {
    const { entries, next } = await auditEntriesAfter(db, merchantId, filter, after, batchSize);
    return { text: entries.map((entry) => `${auditCsvRow(entry, format)}\r\n`).join(""), next };
  };
  const first = await readBatch(undefined);
  async function* pieces(): AsyncGenerator<string> {
    yield `${BYTE_ORDER_MARK}${AUDIT_CSV_HEADER.join(format.separator)}\r\n${first.text}`;
    for (let after = first.next; after; ) {
      const batch = await readBatch(after);
      yield batch.text;
      after = batch.next;
    }
  }
  return Readable.from(pieces());
}
