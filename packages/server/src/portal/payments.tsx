/** @jsxRuntime automatic @jsxImportSource preact */
// GET /portal/payments and /portal/payments.csv (docs/portal.md#payments): the merchant's
// payments, link sales and saved-card charges alike, in a date range (days in UTC, both ends
// included) with the type, result and search filters, 25 to a page; and the same as a CSV file
// for the accountant.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { FINISHED_STATES, listPayments, PAYMENT_SOURCES, type PaymentFilter } from "../db/payments-read-repository.ts";
import { lastDays } from "../domain/portal/daily-series.ts";
import type { PortalContext } from "./deps.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { paymentsCsv } from "./payments-csv.ts";
import { paymentsFacts } from "./payments-facts.ts";
import { frameOf, sendPortalPage } from "./render.tsx";
import { dayStart, PaymentsQuery, pageNumber } from "./schemas.ts";
import { FilterSelect } from "./views/form-bits.tsx";
import { Layout } from "./views/layout.tsx";
import { Pager } from "./views/pager.tsx";
import { PaymentsTable } from "./views/payments-table.tsx";

const PAGE_SIZE = 25;

interface PaymentsQueryText {
  from?: string | undefined;
  to?: string | undefined;
  search?: string | undefined;
  type?: string | undefined;
  result?: string | undefined;
}

/** The filters asked for (a value that cannot be read filters nothing); without a range, the last 30 days. */
function filtersOf(query: PaymentsQueryText, now: Date) {
  const days = lastDays(now, 30);
  const fromText = dayStart(query.from) ? query.from! : days[0]!;
  const toText = dayStart(query.to) ? query.to! : days[days.length - 1]!;
  const filter: PaymentFilter = {
    from: dayStart(fromText)!,
    to: new Date(dayStart(toText)!.getTime() + 86_400_000),
    source: PAYMENT_SOURCES.find((s) => s === query.type),
    state: FINISHED_STATES.find((s) => s === query.result),
    search: query.search?.trim() || undefined,
  };
  /** The same filters as a query string, for the pager and the CSV link. */
  const params = new URLSearchParams({ from: fromText, to: toText });
  for (const [key, value] of Object.entries({ search: filter.search, type: filter.source, result: filter.state })) {
    if (value) params.set(key, value);
  }
  return { fromText, toText, filter, params };
}

export function paymentsRoutes(fastify: FastifyInstance, { deps }: PortalContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get("/payments", { schema: { querystring: PaymentsQuery } }, async (request, reply) => {
    const session = request.portal.session!;
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang];
    const { fromText, toText, filter, params } = filtersOf(request.query, deps.now());
    const page = pageNumber(request.query.page);
    const { payments, totalCount } = await listPayments(deps.db, session.merchantId, filter, {
      offset: (page - 1) * PAGE_SIZE,
      limit: PAGE_SIZE,
    });
    const facts = await paymentsFacts(deps.db, session.merchantId, payments);
    const pages = Math.max(1, Math.ceil(totalCount / PAGE_SIZE));
    const href = (n: number) => `/portal/payments?${params.toString()}&page=${n}`;
    return sendPortalPage(reply, 200, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={m.payments.title} section="payments">
        <h1>{m.payments.title}</h1>
        <form class="card" method="get" action="/portal/payments">
          <div class="row">
            <div class="field">
              <label for="search">{m.payments.search}</label>
              <input id="search" name="search" type="search" value={filter.search ?? ""} />
            </div>
            <FilterSelect
              name="type"
              label={m.payment.type}
              anyLabel={m.payments.anyType}
              options={PAYMENT_SOURCES.map((s) => ({ value: s, label: m.payment.sources[s]! }))}
              selected={filter.source}
            />
            <FilterSelect
              name="result"
              label={m.payment.result}
              anyLabel={m.payments.anyResult}
              options={FINISHED_STATES.map((s) => ({ value: s, label: m.payment.states[s]! }))}
              selected={filter.state}
            />
            <div class="field">
              <label for="from">{m.payments.from}</label>
              <input id="from" name="from" type="date" value={fromText} />
            </div>
            <div class="field">
              <label for="to">{m.payments.to}</label>
              <input id="to" name="to" type="date" value={toText} />
            </div>
            <div class="field">
              <button type="submit">{m.payments.show}</button>
            </div>
            <div class="field">
              <a class="button secondary" href={`/portal/payments.csv?${params.toString()}`} download>
                {m.payments.exportCsv}
              </a>
            </div>
          </div>
          <p class="hint">{m.payments.csvHint}</p>
        </form>
        <div class="card">
          {payments.length === 0 ? <p>{m.payments.none}</p> : <PaymentsTable payments={payments} lang={lang} facts={facts} />}
          <Pager page={page} pages={pages} label={m.payments.pageOf(page, pages, totalCount)} href={href} lang={lang} />
        </div>
      </Layout>
    ));
  });

  app.get("/payments.csv", { schema: { querystring: PaymentsQuery } }, async (request, reply) => {
    const session = request.portal.session!;
    const { fromText, toText, filter } = filtersOf(request.query, deps.now());
    const csv = await paymentsCsv(deps.db, session.merchantId, filter, request.portal.lang);
    return reply
      .header("content-type", "text/csv; charset=utf-8")
      .header("content-disposition", `attachment; filename="paylink-payments-${fromText}-${toText}.csv"`)
      .header("cache-control", "no-store")
      .send(csv);
  });
}
