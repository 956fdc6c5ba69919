/** @jsxRuntime automatic @jsxImportSource preact */
// GET /portal/links (docs/portal.md#links): the merchant's links with the list API's filters
// (status, type, created from/to, search) and pages, through the same repository query.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { listLinks } from "../db/links-repository.ts";
import { linkStatus } from "../domain/links/status.ts";
import { LINK_STATUSES, LINK_TYPES, type LinkStatus, type LinkType } from "../domain/links/types.ts";
import { may } from "../domain/portal/roles.ts";
import { formatDateTime, formatMoney } from "../web/i18n.ts";
import type { PortalContext } from "./deps.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { frameOf, sendPortalPage } from "./render.tsx";
import { dayStart, LinksQuery, pageNumber } from "./schemas.ts";
import { FilterSelect } from "./views/form-bits.tsx";
import { Layout } from "./views/layout.tsx";
import { Pager } from "./views/pager.tsx";
import { TableHead, TableWrap } from "./views/table.tsx";

const PAGE_SIZE = 20;

export function linksListRoute(fastify: FastifyInstance, { deps }: PortalContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get("/links", { schema: { querystring: LinksQuery } }, async (request, reply) => {
    const session = request.portal.session!;
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang];
    const q = request.query;
    const status = LINK_STATUSES.find((s) => s === q.status) as LinkStatus | undefined;
    const type = LINK_TYPES.find((t) => t === q.type) as LinkType | undefined;
    const createdFrom = dayStart(q.createdFrom);
    const createdToDay = dayStart(q.createdTo);
    // "Created to" a day includes that whole day.
    const createdTo = createdToDay && new Date(createdToDay.getTime() + 86_400_000 - 1);
    const page = pageNumber(q.page);
    const now = deps.now();
    const search = q.search?.trim() || undefined;
    const { links, totalCount } = await listLinks(
      deps.db,
      session.merchantId,
      { status, type, createdFrom, createdTo, search },
      { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE },
      now,
    );
    const pages = Math.max(1, Math.ceil(totalCount / PAGE_SIZE));
    const pageHref = (n: number) => {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries({ status, type, search, createdFrom: q.createdFrom, createdTo: q.createdTo })) {
        if (value) params.set(key, value);
      }
      params.set("page", String(n));
      return `/portal/links?${params.toString()}`;
    };
    return sendPortalPage(reply, 200, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={m.links.title} section="links">
        <div class="row">
          <h1>{m.links.title}</h1>
          {may(request.portal.session!.role, "links.manage") ? (
            <a class="button" href="/portal/links/new">
              {m.links.newLink}
            </a>
          ) : null}
        </div>
        <form class="card" method="get" action="/portal/links">
          <div class="row">
            <div class="field">
              <label for="search">{m.links.search}</label>
              <input id="search" name="search" type="search" value={search ?? ""} />
            </div>
            <FilterSelect
              name="status"
              label={m.link.status}
              anyLabel={m.links.anyStatus}
              options={LINK_STATUSES.map((s) => ({ value: s, label: m.links.statuses[s]! }))}
              selected={status}
            />
            <FilterSelect
              name="type"
              label={m.link.type}
              anyLabel={m.links.anyType}
              options={LINK_TYPES.map((t) => ({ value: t, label: m.links.types[t]! }))}
              selected={type}
            />
            <div class="field">
              <label for="createdFrom">{m.links.createdFrom}</label>
              <input id="createdFrom" name="createdFrom" type="date" value={createdFrom ? q.createdFrom : ""} />
            </div>
            <div class="field">
              <label for="createdTo">{m.links.createdTo}</label>
              <input id="createdTo" name="createdTo" type="date" value={createdToDay ? q.createdTo : ""} />
            </div>
            <div class="field">
              <button type="submit">{m.links.apply}</button>
            </div>
          </div>
        </form>
        <div class="card">
          {links.length === 0 ? (
            <p>{m.links.none}</p>
          ) : (
            <TableWrap label={m.links.title}>
              <table data-links class="cards">
                <TableHead
                  columns={[
                    m.link.reference,
                    m.link.description,
                    m.link.type,
                    m.link.status,
                    { num: m.link.amount },
                    { num: m.link.visits },
                    { num: m.link.sales },
                    m.link.created,
                  ]}
                />
                <tbody>
                  {links.map((link) => {
                    const s = linkStatus(link, now);
                    return (
                      <tr key={link.reference}>
                        <td data-label={m.link.reference}>
                          <a class="mono" href={`/portal/links/${link.reference}`}>
                            {link.reference}
                          </a>
                        </td>
                        <td data-label={m.link.description}>
                          {link.terms.description || <span class="muted">{m.link.noDescription}</span>}
                        </td>
                        <td data-label={m.link.type}>{m.links.types[link.terms.type]}</td>
                        <td data-label={m.link.status}>
                          <span class={s === "Active" ? "pill ok" : "pill"}>{m.links.statuses[s]}</span>
                        </td>
                        <td class="num" data-label={m.link.amount}>
                          {formatMoney(link.terms.amount, link.terms.currency, lang)}
                        </td>
                        <td class="num" data-label={m.link.visits}>
                          {link.visitCount}
                        </td>
                        <td class="num" data-label={m.link.sales}>
                          {link.salesCount}
                        </td>
                        <td data-label={m.link.created}>{formatDateTime(link.createdAt, lang)}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </TableWrap>
          )}
          <Pager page={page} pages={pages} label={m.links.pageOf(page, pages, totalCount)} href={pageHref} lang={lang} />
        </div>
      </Layout>
    ));
  });
}
