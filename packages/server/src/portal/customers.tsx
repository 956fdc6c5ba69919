/** @jsxRuntime automatic @jsxImportSource preact */
// /portal/customers (docs/portal.md#customers): the merchant's shoppers, known by e-mail (the one
// rule of domain/payments/shopper-email.ts) or, when no e-mail is known, by the merchant's own
// shopper reference; found by e-mail, name, reference or last four. One page per shopper with
// their payments (refunds told apart), their refunds and their saved cards.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import Type from "typebox";
import { customerActivity, listCustomers, listSavedCards } from "../db/customers-repository.ts";
import { findPayment, type PaymentRow } from "../db/payments-read-repository.ts";
import { refundsOf } from "../db/refunds-repository.ts";
import { formatDateTime, formatMoney } from "../web/i18n.ts";
import { customerHref, customerId, customerKeyOf } from "./customer-id.ts";
import type { PortalContext } from "./deps.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { paymentsFacts } from "./payments-facts.ts";
import { frameOf, sendPortalNotFound, sendPortalPage } from "./render.tsx";
import { pageNumber } from "./schemas.ts";
import { Layout } from "./views/layout.tsx";
import { Pager } from "./views/pager.tsx";
import { PaymentsTable } from "./views/payments-table.tsx";
import { SavedCardsTable } from "./views/saved-cards-table.tsx";
import { SearchForm } from "./views/search-form.tsx";
import { TableHead, TableWrap } from "./views/table.tsx";

const PAGE_SIZE = 25;
const ListQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.String({ maxLength: 10 })),
  lang: Type.Optional(Type.String()),
});
const CustomerParams = Type.Object({ id: Type.String({ maxLength: 600 }) });

export function customersRoutes(fastify: FastifyInstance, { deps }: PortalContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get("/customers", { schema: { querystring: ListQuery } }, async (request, reply) => {
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang];
    const c = m.customers;
    const search = request.query.search?.trim() || undefined;
    const page = pageNumber(request.query.page);
    const { customers, totalCount } = await listCustomers(deps.db, request.portal.session!.merchantId, search, {
      offset: (page - 1) * PAGE_SIZE,
      limit: PAGE_SIZE,
    });
    const pages = Math.max(1, Math.ceil(totalCount / PAGE_SIZE));
    const href = (n: number) => `/portal/customers?${new URLSearchParams(search ? { search, page: String(n) } : { page: String(n) })}`;
    return sendPortalPage(reply, 200, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={c.title} section="customers">
        <h1>{c.title}</h1>
        <p class="muted">{c.intro}</p>
        <SearchForm action="/portal/customers" label={c.search} button={c.show} value={search} />
        {customers.length === 0 ? (
          <p class="muted">{c.none}</p>
        ) : (
          <TableWrap label={c.title}>
            <table data-customers class="cards">
              <TableHead columns={[c.customer, c.name, c.reference, { num: c.payments }, c.lastSeen]} />
              <tbody>
                {customers.map((customer) => (
                  <tr key={customerId(customer.key)}>
                    <td data-label={c.customer}>
                      <a href={`/portal/customers/${customerId(customer.key)}`}>{customer.email ?? customer.reference}</a>
                    </td>
                    <td data-label={c.name}>{customer.name ?? m.none}</td>
                    <td data-label={c.reference} class="mono">
                      {customer.reference ?? m.none}
                    </td>
                    <td data-label={c.payments} class="num">
                      {customer.payments}
                    </td>
                    <td data-label={c.lastSeen}>{formatDateTime(customer.lastSeen, lang)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        <Pager page={page} pages={pages} label={c.title} href={href} lang={lang} />
      </Layout>
    ));
  });

  app.get("/customers/:id", { schema: { params: CustomerParams }, attachValidation: true }, async (request, reply) => {
    const key = request.validationError ? undefined : customerKeyOf(request.params.id);
    const merchantId = request.portal.session!.merchantId;
    const activity = key && (await customerActivity(deps.db, merchantId, key));
    if (!activity) return sendPortalNotFound(request, reply);
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang];
    const c = m.customers;
    const found = await Promise.all(activity.paymentReferences.map((reference) => findPayment(deps.db, merchantId, reference)));
    const payments = found
      .filter((payment): payment is PaymentRow => payment !== undefined)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const payfacReferences = payments.flatMap((p) => (p.payfacReference && p.state === "approved" ? [p.payfacReference] : []));
    const facts = await paymentsFacts(deps.db, merchantId, payments);
    const refunds = (await Promise.all(payfacReferences.map((reference) => refundsOf(deps.db, merchantId, reference)))).flat();
    const paymentOf = new Map(payments.map((p) => [p.payfacReference, p]));
    const cards = await listSavedCards(deps.db, merchantId, { tokens: activity.tokens });
    const title = activity.email ?? activity.reference ?? c.customer;
    return sendPortalPage(reply, 200, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={title} section="customers">
        <h1>{title}</h1>
        <section class="card">
          <dl class="facts">
            <dt>{c.email}</dt>
            <dd>{activity.email ?? m.none}</dd>
            <dt>{c.name}</dt>
            <dd>{activity.name ?? m.none}</dd>
            <dt>{c.reference}</dt>
            <dd class="mono">{activity.reference ?? m.none}</dd>
          </dl>
        </section>
        <h2>{c.paymentsTitle}</h2>
        {payments.length === 0 ? <p class="muted">{c.noPayments}</p> : <PaymentsTable payments={payments} lang={lang} facts={facts} />}
        <h2>{c.refundsTitle}</h2>
        {refunds.length === 0 ? (
          <p class="muted">{c.noRefunds}</p>
        ) : (
          <TableWrap label={c.refundsTitle}>
            <table data-refunds class="cards">
              <TableHead columns={[c.refundDate, c.refundOf, { num: c.refundAmount }, c.refundState]} />
              <tbody>
                {refunds.map((refund) => {
                  const payment = paymentOf.get(refund.originalPayfacReference);
                  return (
                    <tr key={refund.payfacReference}>
                      <td data-label={c.refundDate}>{formatDateTime(refund.createdAt, lang)}</td>
                      <td data-label={c.refundOf} class="mono">
                        {payment ? (
                          <a href={`/portal/payments/${payment.checkoutReference}`}>{payment.checkoutReference}</a>
                        ) : (
                          refund.originalPayfacReference
                        )}
                      </td>
                      <td data-label={c.refundAmount} class="num">
                        {formatMoney(refund.amount, refund.currency, lang)}
                      </td>
                      <td data-label={c.refundState}>
                        <span class={`pill ${refund.state === "failed" ? "bad" : refund.state === "succeeded" ? "ok" : ""}`}>
                          {c.refundStates[refund.state] ?? refund.state}
                        </span>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
        )}
        <h2>{m.savedCards.title}</h2>
        <SavedCardsTable cards={cards} lang={lang} customerHref={customerHref} />
      </Layout>
    ));
  });
}
