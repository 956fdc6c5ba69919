/** @jsxRuntime automatic @jsxImportSource preact */
// GET /portal/audit and /portal/audit.csv (docs/portal.md#audit-log): the merchant's audit log,
// newest first, 25 to a page, filtered by action, person (an e-mail or a key's prefix), object id
// and a date range (days in UTC, both ends included); and the same entries as a CSV file.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { type AuditEntry, type AuditFilter, listAuditEntries } from "../db/audit-repository.ts";
import { AUDIT_ACTIONS, isAuditAction } from "../domain/audit/entry.ts";
import { formatDateTime, formatMoney, type Lang } from "../web/i18n.ts";
import { auditCsv } from "./audit-csv.ts";
import type { PortalContext } from "./deps.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { frameOf, sendPortalPage } from "./render.tsx";
import { AuditQuery, dayStart, pageNumber } from "./schemas.ts";
import { FilterSelect } from "./views/form-bits.tsx";
import { Layout } from "./views/layout.tsx";
import { Pager } from "./views/pager.tsx";
import { TableHead, TableWrap } from "./views/table.tsx";

const PAGE_SIZE = 25;

interface AuditQueryText {
  action?: string | undefined;
  person?: string | undefined;
  object?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** The filters asked for; a value that cannot be read filters nothing. Without a range, all time. */
function filtersOf(query: AuditQueryText) {
  const from = dayStart(query.from);
  const to = dayStart(query.to);
  const filter: AuditFilter = {
    action: query.action && isAuditAction(query.action) ? query.action : undefined,
    actor: query.person?.trim() || undefined,
    objectId: query.object?.trim() || undefined,
    from,
    before: to && new Date(to.getTime() + 86_400_000),
  };
  const params = new URLSearchParams();
  const shown = { action: filter.action, person: filter.actor, object: filter.objectId, from: from && query.from, to: to && query.to };
  for (const [key, value] of Object.entries(shown)) if (value) params.set(key, value);
  return { filter, params, fromText: from ? query.from! : "", toText: to ? query.to! : "" };
}

export function auditRoutes(fastify: FastifyInstance, { deps }: PortalContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get("/audit", { schema: { querystring: AuditQuery } }, async (request, reply) => {
    const session = request.portal.session!;
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang].audit;
    const { filter, params, fromText, toText } = filtersOf(request.query);
    const page = pageNumber(request.query.page);
    const { entries, totalCount } = await listAuditEntries(deps.db, session.merchantId, filter, {
      offset: (page - 1) * PAGE_SIZE,
      limit: PAGE_SIZE,
    });
    const pages = Math.max(1, Math.ceil(totalCount / PAGE_SIZE));
    const query = params.toString();
    const href = (n: number) => `/portal/audit?${query}${query ? "&" : ""}page=${n}`;
    return sendPortalPage(reply, 200, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={m.title} section="audit">
        <h1>{m.title}</h1>
        <p class="muted">{m.intro}</p>
        <form class="card" method="get" action="/portal/audit">
          <div class="row">
            <FilterSelect
              name="action"
              label={m.action}
              anyLabel={m.anyAction}
              options={AUDIT_ACTIONS.map((a) => ({ value: a, label: m.actions[a] ?? a }))}
              selected={filter.action}
            />
            <div class="field">
              <label for="person">{m.person}</label>
              <input id="person" name="person" type="search" value={filter.actor ?? ""} />
            </div>
            <div class="field">
              <label for="object">{m.objectId}</label>
              <input id="object" name="object" type="search" value={filter.objectId ?? ""} />
            </div>
            <div class="field">
              <label for="from">{m.from}</label>
              <input id="from" name="from" type="date" value={fromText} />
            </div>
            <div class="field">
              <label for="to">{m.to}</label>
              <input id="to" name="to" type="date" value={toText} />
            </div>
            <div class="field">
              <button type="submit">{m.show}</button>
            </div>
            <div class="field">
              <a class="button secondary" href={`/portal/audit.csv${query ? `?${query}` : ""}`} download>
                {m.exportCsv}
              </a>
            </div>
          </div>
        </form>
        <div class="card">
          {entries.length === 0 ? <p>{m.none}</p> : <AuditTable entries={entries} lang={lang} />}
          <Pager page={page} pages={pages} label={m.pageOf(page, pages, totalCount)} href={href} lang={lang} />
        </div>
      </Layout>
    ));
  });

  app.get("/audit.csv", { schema: { querystring: AuditQuery } }, async (request, reply) => {
    const session = request.portal.session!;
    const { filter } = filtersOf(request.query);
    const csv = await auditCsv(deps.db, session.merchantId, filter, request.portal.lang);
    return reply
      .header("content-type", "text/csv; charset=utf-8")
      .header("content-disposition", `attachment; filename="paylink-audit-${deps.now().toISOString().slice(0, 10)}.csv"`)
      .header("cache-control", "no-store")
      .send(csv);
  });
}

function AuditTable(props: { entries: AuditEntry[]; lang: Lang }) {
  const m = PORTAL_MESSAGES[props.lang].audit;
  return (
    <TableWrap label={m.title}>
      <table data-audit class="cards">
        <TableHead columns={[m.when, m.who, m.what, m.object, m.address, m.details]} />
        <tbody>
          {props.entries.map((entry) => (
            <tr key={entry.id} data-action={entry.action}>
              <td data-label={m.when}>
                <time datetime={entry.createdAt.toISOString()}>{formatDateTime(entry.createdAt, props.lang)}</time>
              </td>
              <td data-label={m.who}>
                <span>{entry.actorKind === "operator" ? m.operator : entry.actorLabel}</span>
              </td>
              <td data-label={m.what}>
                <span>{m.actions[entry.action] ?? entry.action}</span>
              </td>
              <td data-label={m.object}>
                <ObjectLink entry={entry} />
              </td>
              <td class="mono" data-label={m.address}>
                <span>{entry.address ?? "—"}</span>
              </td>
              <td data-label={m.details}>
                <span>{detailsText(entry, props.lang)}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** The object's id, a link to its page where the portal has one. */
function ObjectLink(props: { entry: AuditEntry }) {
  const { objectType, objectId } = props.entry;
  const path =
    objectType === "payment-link"
      ? `/portal/links/${objectId}`
      : objectType === "webhook-endpoint"
        ? `/portal/developers/webhooks/${objectId}`
        : objectType === "theme"
          ? `/portal/themes/${objectId}`
          : null;
  return path && props.entry.action !== "webhook.delete" ? (
    <a class="mono" href={path}>
      {objectId}
    </a>
  ) : (
    <span class="mono">{objectId}</span>
  );
}

/**
 * The details as short "name: value" pairs in the page's language; an amount with its currency
 * reads as money. Names and values the catalogue does not know are shown as stored.
 */
function detailsText(entry: AuditEntry, lang: Lang): string {
  const messages = PORTAL_MESSAGES[lang];
  const { detailNames, detailValues } = messages.audit;
  const { amount, currency, ...rest } = entry.details;
  // Own keys only: a stored name such as "constructor" is shown as it is.
  const known = (words: Record<string, string>, key: string) => (Object.hasOwn(words, key) ? words[key] : undefined);
  const nameOf = (name: string) => known(detailNames, name) ?? name;
  const shownValue = (name: string, value: string | number | boolean) => {
    const text = String(value);
    if (name === "fields") return nameOf(text);
    if (name === "role") return known(messages.roles, text) ?? text;
    return known(detailValues, text) ?? text;
  };
  const parts: string[] = [];
  if (typeof amount === "number" && typeof currency === "string") parts.push(formatMoney(amount, currency, lang));
  else if (amount !== undefined) parts.push(`${nameOf("amount")}: ${String(amount)}`);
  for (const [name, value] of Object.entries(rest)) {
    if (value === null || value === undefined) continue;
    const shown = Array.isArray(value) ? value.map((one) => shownValue(name, one)).join(", ") : shownValue(name, value);
    parts.push(`${nameOf(name)}: ${shown}`);
  }
  return parts.join(" · ") || "—";
}
