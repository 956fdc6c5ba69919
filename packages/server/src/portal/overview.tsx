/** @jsxRuntime automatic @jsxImportSource preact */
// GET /portal/overview (docs/portal.md#overview): sales and revenue per day for the last 30 days
// (every approved payment: link sales and saved-card charges), gross, refunds and net per currency,
// the links' visits → sales conversion, the links that sell most, the latest payments.
import type { FastifyInstance } from "fastify";
import { listPayments } from "../db/payments-read-repository.ts";
import { linkTotals, refundsPerDay, salesPerDay, topLinks } from "../db/portal-overview-repository.ts";
import { conversionPercent, dailySeries, lastDays } from "../domain/portal/daily-series.ts";
import { formatMoney, formatNumber } from "../web/i18n.ts";
import type { PortalContext } from "./deps.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { paymentsFacts } from "./payments-facts.ts";
import { frameOf, sendPortalPage } from "./render.tsx";
import { Layout } from "./views/layout.tsx";
import { PaymentsTable } from "./views/payments-table.tsx";
import { SalesChart } from "./views/sales-chart.tsx";
import { TableHead, TableWrap } from "./views/table.tsx";

export function overviewRoutes(app: FastifyInstance, { deps }: PortalContext): void {
  app.get("/overview", async (request, reply) => {
    const session = request.portal.session!;
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang];
    const days = lastDays(deps.now(), 30);
    const from = new Date(`${days[0]}T00:00:00Z`);
    const [rows, refunds, totals, top, recent] = await Promise.all([
      salesPerDay(deps.db, session.merchantId, from),
      refundsPerDay(deps.db, session.merchantId, from),
      linkTotals(deps.db, session.merchantId),
      topLinks(deps.db, session.merchantId, 5),
      listPayments(deps.db, session.merchantId, {}, { offset: 0, limit: 8 }),
    ]);
    const series = dailySeries(rows, days, refunds);
    const facts = await paymentsFacts(deps.db, session.merchantId, recent.payments);
    const conversion = conversionPercent(totals.visits, totals.sales);
    const net = series.totals.map((t) => formatMoney(t.net, t.currency, lang)).join(" · ") || "0";
    return sendPortalPage(reply, 200, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={m.overview.title} section="overview">
        <h1>{m.overview.title}</h1>
        <dl class="stats">
          <div class="stat">
            <dt>{m.overview.sales30}</dt>
            <dd data-stat="sales">
              {formatNumber(
                series.totals.reduce((sum, t) => sum + t.sales, 0),
                lang,
              )}
            </dd>
          </div>
          <div class="stat">
            <dt>{m.overview.net30}</dt>
            <dd data-stat="net">{net}</dd>
          </div>
          <div class="stat">
            <dt>{m.overview.visits}</dt>
            <dd data-stat="visits">{formatNumber(totals.visits, lang)}</dd>
          </div>
          <div class="stat">
            <dt>{m.overview.conversion}</dt>
            <dd data-stat="conversion">{conversion === null ? m.none : `${formatNumber(conversion, lang)} %`}</dd>
          </div>
        </dl>
        {series.totals.length > 0 ? (
          <section class="card" aria-labelledby="money-title">
            <h2 id="money-title">{m.overview.moneyTitle}</h2>
            <TableWrap label={m.overview.moneyTitle}>
              <table data-money>
                <TableHead
                  columns={[
                    m.overview.currency,
                    { num: m.overview.sales },
                    { num: m.overview.gross },
                    { num: m.overview.refunded },
                    { num: m.overview.net },
                  ]}
                />
                <tbody>
                  {series.totals.map((t) => (
                    <tr key={t.currency} data-currency={t.currency}>
                      <td>{t.currency}</td>
                      <td class="num">{formatNumber(t.sales, lang)}</td>
                      <td class="num">{formatMoney(t.revenue, t.currency, lang)}</td>
                      <td class="num">
                        {t.refunded > 0 ? `− ${formatMoney(t.refunded, t.currency, lang)}` : formatMoney(0, t.currency, lang)}
                      </td>
                      <td class="num">
                        <strong>{formatMoney(t.net, t.currency, lang)}</strong>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
            <p class="hint">{m.overview.moneyHint}</p>
          </section>
        ) : null}
        <section class="card" aria-labelledby="chart-title">
          <h2 id="chart-title">{m.overview.chartTitle}</h2>
          <SalesChart series={series} lang={lang} />
        </section>
        {/* One card a row: the recent payments table has six columns, too many for half the page. */}
        <section class="card" aria-labelledby="top-title">
          <h2 id="top-title">{m.overview.topLinks}</h2>
          {top.length === 0 ? (
            <p class="muted">{m.overview.noSales}</p>
          ) : (
            <TableWrap label={m.overview.topLinks}>
              <table>
                <TableHead columns={[m.link.reference, { num: m.link.sales }, { num: m.link.visits }]} />
                <tbody>
                  {top.map((link) => (
                    <tr key={link.reference}>
                      <td>
                        <a class="mono" href={`/portal/links/${link.reference}`}>
                          {link.reference}
                        </a>
                        <span class="hint">{link.description || m.link.noDescription}</span>
                      </td>
                      <td class="num">{link.salesCount}</td>
                      <td class="num">{link.visitCount}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </section>
        <section class="card" aria-labelledby="recent-title">
          <h2 id="recent-title">{m.overview.recentPayments}</h2>
          {recent.payments.length === 0 ? (
            <p class="muted">{m.overview.noPayments}</p>
          ) : (
            <>
              <PaymentsTable payments={recent.payments} lang={lang} facts={facts} />
              <a href="/portal/payments">{m.overview.allPayments}</a>
            </>
          )}
        </section>
      </Layout>
    ));
  });
}
