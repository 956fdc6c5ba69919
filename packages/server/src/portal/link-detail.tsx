/** @jsxRuntime automatic @jsxImportSource preact */
// GET /portal/links/{reference} and its disable/enable actions (docs/portal.md#links): the link's
// address with a copy button and QR code, counters and conversion, terms, items, and every
// submission with the shopper's answers, the masked card and the result, newest first, a page at a
// time.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { findLink, listSubmissionsPage } from "../db/links-repository.ts";
import { linkStatus } from "../domain/links/status.ts";
import { linkUrl } from "../domain/links/url.ts";
import { conversionPercent } from "../domain/portal/daily-series.ts";
import { may } from "../domain/portal/roles.ts";
import { disableLink } from "../services/disable-link.ts";
import { updateLink } from "../services/update-link.ts";
import { formatDateTime, formatMoney, formatNumber } from "../web/i18n.ts";
import { shopperFieldLabel } from "../web/shopper-field-labels.ts";
import type { PortalContext } from "./deps.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { frameOf, sendPortalNotFound, sendPortalPage } from "./render.tsx";
import { formField, portalActor } from "./request-state.ts";
import { PageQuery, pageNumber, ReferenceParams } from "./schemas.ts";
import { cardName, declineReasonText } from "./views/card.tsx";
import { sendConfirmPage } from "./views/confirm.tsx";
import { Csrf, Layout } from "./views/layout.tsx";
import { Pager } from "./views/pager.tsx";
import { StatePill } from "./views/payments-table.tsx";
import { TableHead, TableWrap } from "./views/table.tsx";

/** Submissions a page of the detail shows: a busy link has tens of thousands. */
const SUBMISSIONS_PER_PAGE = 50;

export function linkDetailRoutes(fastify: FastifyInstance, { deps }: PortalContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const options = { schema: { params: ReferenceParams }, attachValidation: true, config: { portalAction: "links.manage" as const } };
  const pageOptions = { schema: { params: ReferenceParams, querystring: PageQuery }, attachValidation: true };

  app.get("/links/:reference", pageOptions, async (request, reply) => {
    const session = request.portal.session!;
    const { lang } = request.portal;
    // An unreadable page number shows the first page; an unreadable reference is no link.
    const badReference = request.validationError?.validationContext === "params";
    const link = badReference ? undefined : await findLink(deps.db, session.merchantId, request.params.reference);
    if (!link) return sendPortalNotFound(request, reply);
    const m = PORTAL_MESSAGES[lang];
    // Unreadable (also too long for the schema): the first page.
    const page = pageNumber(request.query.page);
    const { submissions, totalCount } = await listSubmissionsPage(deps.db, link.reference, {
      offset: (page - 1) * SUBMISSIONS_PER_PAGE,
      limit: SUBMISSIONS_PER_PAGE,
    });
    const pages = Math.max(1, Math.ceil(totalCount / SUBMISSIONS_PER_PAGE));
    const now = deps.now();
    const status = linkStatus(link, now);
    const url = linkUrl(deps.publicBaseUrl, link.reference);
    const { terms } = link;
    const conversion = conversionPercent(link.visitCount, link.salesCount);
    const done = formField(request.query, "done");
    return sendPortalPage(reply, 200, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={link.reference} section="links">
        <h1>
          <span class="mono">{link.reference}</span>{" "}
          <span class={status === "Active" ? "pill ok" : "pill"}>{m.links.statuses[status]}</span>
        </h1>
        {done === "disabled" || done === "enabled" ? (
          <div class="alert ok" role="status">
            {done === "disabled" ? m.detail.disabledNotice : m.detail.enabledNotice}
          </div>
        ) : null}
        {terms.description ? <p>{terms.description}</p> : null}
        <div class="grid two">
          <section class="card" aria-labelledby="url-title">
            <h2 id="url-title">{m.detail.url}</h2>
            <div class="copy-row">
              <code data-link-url>{url}</code>
              <button type="button" class="secondary" data-copy={url} data-copied={m.copied} hidden>
                {m.copy}
              </button>
            </div>
            <img class="qr" src={`/pay/${link.reference}/qr.svg`} alt={m.detail.qr} width={160} height={160} />
            {may(session.role, "links.manage") ? (
              <div class="actions">
                {terms.type === "TokenizeByLink" && link.salesCount > 0 ? null : (
                  <a class="button secondary" href={`/portal/links/${link.reference}/edit`}>
                    {m.detail.edit}
                  </a>
                )}
                {link.disabled ? (
                  <form method="post" action={`/portal/links/${link.reference}/enable`}>
                    <Csrf token={session.csrfToken} />
                    <button type="submit" class="secondary">
                      {m.detail.enable}
                    </button>
                  </form>
                ) : (
                  // Disabling asks first, on a page of its own.
                  <a class="button danger" href={`/portal/links/${link.reference}/disable`}>
                    {m.detail.disable}
                  </a>
                )}
              </div>
            ) : null}
          </section>
          <section class="card" aria-labelledby="counters-title">
            <h2 id="counters-title">{m.detail.counters}</h2>
            <dl class="facts">
              <dt>{m.link.visits}</dt>
              <dd data-visits>{formatNumber(link.visitCount, lang)}</dd>
              <dt>{m.link.sales}</dt>
              <dd data-sales>{formatNumber(link.salesCount, lang)}</dd>
              <dt>{m.detail.conversion}</dt>
              <dd>{conversion === null ? m.none : `${formatNumber(conversion, lang)} %`}</dd>
              <dt>{m.link.amount}</dt>
              <dd>{formatMoney(terms.amount, terms.currency, lang)}</dd>
              <dt>{m.link.type}</dt>
              <dd>{m.links.types[terms.type]}</dd>
              <dt>{m.detail.expires}</dt>
              <dd>{terms.validUntil ? formatDateTime(terms.validUntil, lang) : m.detail.never}</dd>
              <dt>{m.detail.maxSales}</dt>
              <dd>{terms.maxSalesCount ?? m.detail.unlimited}</dd>
              <dt>{m.detail.culture}</dt>
              <dd>{terms.culture === "is" ? "Íslenska" : "English"}</dd>
              <dt>{m.detail.returnUrl}</dt>
              <dd>{terms.returnUrl ?? m.none}</dd>
              <dt>{m.link.created}</dt>
              <dd>{formatDateTime(link.createdAt, lang)}</dd>
            </dl>
          </section>
        </div>
        {terms.items.length > 0 ? (
          <section class="card" aria-labelledby="items-title">
            <h2 id="items-title">{m.detail.items}</h2>
            <TableWrap label={m.detail.items}>
              <table>
                <TableHead columns={[m.form.itemName, { num: m.detail.quantity }, { num: m.detail.unitPrice }, { num: m.link.amount }]} />
                <tbody>
                  {terms.items.map((item, i) => (
                    <tr key={`${i}-${item.name}`}>
                      <td>{item.name}</td>
                      <td class="num">{item.quantity}</td>
                      <td class="num">{formatMoney(item.unitPrice, terms.currency, lang)}</td>
                      <td class="num">{formatMoney(item.amount, terms.currency, lang)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          </section>
        ) : null}
        <section class="card" aria-labelledby="subs-title">
          <h2 id="subs-title">{m.detail.submissions}</h2>
          {submissions.length === 0 ? (
            // A page past the last shows only its pager, which counts them.
            totalCount === 0 ? (
              <p class="muted">{m.detail.noSubmissions}</p>
            ) : null
          ) : (
            <TableWrap label={m.detail.submissionsTable}>
              <table data-submissions class="cards">
                <TableHead columns={[m.payment.date, m.detail.answers, m.payment.card, { num: m.payment.amount }, m.payment.result]} />
                <tbody>
                  {submissions.map((s) => (
                    <tr key={s.checkoutReference}>
                      <td data-label={m.payment.date}>
                        {["approved", "declined", "failed"].includes(s.state) ? (
                          <a href={`/portal/payments/${s.checkoutReference}`}>{formatDateTime(s.createdAt, lang)}</a>
                        ) : (
                          <span>{formatDateTime(s.createdAt, lang)}</span>
                        )}
                      </td>
                      <td data-label={m.detail.answers}>
                        {s.answers.map((a) => (
                          <span class="hint" key={a.field}>
                            {`${shopperFieldLabel(lang, a.field)}: ${a.value}`}
                          </span>
                        ))}
                      </td>
                      <td class="masked-card" data-label={m.payment.card}>
                        <span>{cardName(s.cardBrand, s.cardMasked) ?? m.none}</span>
                      </td>
                      <td class="num" data-label={m.payment.amount}>
                        <span>{formatMoney(s.amount, s.currency, lang)}</span>
                      </td>
                      <td data-label={m.payment.result}>
                        <StatePill state={s.state} lang={lang} />
                        {s.reason && s.state !== "approved" ? <span class="hint">{declineReasonText(lang, s.reason)}</span> : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
          {totalCount > SUBMISSIONS_PER_PAGE || page > 1 ? (
            <Pager
              page={page}
              pages={pages}
              label={m.detail.submissionsPageOf(page, pages, totalCount)}
              href={(n) => `/portal/links/${encodeURIComponent(link.reference)}?page=${n}`}
              lang={lang}
            />
          ) : null}
        </section>
      </Layout>
    ));
  });

  app.get("/links/:reference/disable", options, async (request, reply) => {
    const link = request.validationError
      ? undefined
      : await findLink(deps.db, request.portal.session!.merchantId, request.params.reference);
    if (!link || link.disabled) return sendPortalNotFound(request, reply);
    const m = PORTAL_MESSAGES[request.portal.lang].detail;
    const path = `/portal/links/${link.reference}`;
    return sendConfirmPage(request, reply, {
      question: m.confirmDisable(link.reference),
      consequence: m.confirmDisableText,
      action: `${path}/disable`,
      button: m.disable,
      back: path,
      section: "links",
    });
  });

  app.post("/links/:reference/disable", options, async (request, reply) => {
    const merchantId = request.portal.session!.merchantId;
    const found =
      !request.validationError &&
      (await disableLink({ ...deps, log: request.log }, merchantId, portalActor(request), request.params.reference));
    if (!found) return sendPortalNotFound(request, reply);
    return reply.redirect(`/portal/links/${request.params.reference}?done=disabled`, 303);
  });

  app.post("/links/:reference/enable", options, async (request, reply) => {
    const merchantId = request.portal.session!.merchantId;
    const { reference } = request.params;
    // Re-enabling follows the API's update rules (status "Active"), through the same service.
    const found =
      !request.validationError &&
      (await updateLink({ ...deps, log: request.log }, merchantId, portalActor(request), {
        paymentLinkReference: reference,
        status: "Active",
      }));
    if (!found) return sendPortalNotFound(request, reply);
    return reply.redirect(`/portal/links/${reference}?done=enabled`, 303);
  });
}
