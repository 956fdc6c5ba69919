// GET /admin/v1/merchants/{id}/audit (docs/admin-api.md#audit-log): the merchant's audit log,
// newest first, paged and filtered like the portal's page.
import Type from "typebox";
import { type AuditEntry, listAuditEntries } from "../db/audit-repository.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { requireMerchant } from "./checks.ts";
import type { AdminDeps } from "./deps.ts";
import { AuditQuery, MerchantParams } from "./schemas.ts";

const AuditEntryShape = Type.Object({
  id: Type.String(),
  createdAt: Type.String({ format: "date-time" }),
  actor: Type.Object({
    kind: Type.Union([Type.Literal("user"), Type.Literal("api-key"), Type.Literal("operator")]),
    id: Type.Union([Type.String(), Type.Null()], { description: "the user's or the API key's id; null for the operator" }),
    label: Type.String({ description: "the user's e-mail, the key's prefix, or admin API" }),
  }),
  action: Type.String(),
  object: Type.Object({ type: Type.String(), id: Type.String() }),
  address: Type.Union([Type.String(), Type.Null()], { description: "the client's address" }),
  details: Type.Record(Type.String(), Type.Unknown(), { description: "amounts, currencies, changed field names; never secrets" }),
});

export function registerListAudit(app: TypedApp, deps: AdminDeps) {
  app.get(
    "/merchants/:merchantId/audit",
    {
      schema: {
        tags: ["Admin"],
        summary: "The merchant's audit log, newest first",
        params: MerchantParams,
        querystring: AuditQuery,
        response: { 200: Type.Object({ data: Type.Array(AuditEntryShape), totalCount: Type.Integer() }) },
      },
    },
    async (request) => {
      const { merchantId } = request.params;
      const { query } = request;
      const page = query.page ?? 0;
      const pageSize = query.pageSize ?? 20;
      await requireMerchant(deps.db, merchantId);
      const { entries, totalCount } = await listAuditEntries(
        deps.db,
        merchantId,
        {
          action: query.action,
          actor: query.actor,
          objectId: query.objectId,
          from: query.from === undefined ? undefined : new Date(query.from),
          before: query.to === undefined ? undefined : new Date(query.to),
        },
        { offset: page * pageSize, limit: pageSize },
      );
      return { data: entries.map(presentAuditEntry), totalCount };
    },
  );
}

function presentAuditEntry(entry: AuditEntry) {
  return {
    id: entry.id,
    createdAt: entry.createdAt.toISOString(),
    actor: { kind: entry.actorKind, id: entry.actorId, label: entry.actorLabel },
    action: entry.action,
    object: { type: entry.objectType, id: entry.objectId },
    address: entry.address,
    details: entry.details,
  };
}
