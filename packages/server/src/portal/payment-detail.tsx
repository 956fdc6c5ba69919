/** @jsxRuntime automatic @jsxImportSource preact */
// GET /portal/payments/{checkoutReference} (docs/portal.md#payments): one payment with its link,
// card, result, the shopper's answers and its refunds.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { MESSAGES } from "../checkout/i18n.ts";
import { findPayment } from "../db/payments-read-repository.ts";
import type { PortalContext } from "./deps.ts";
import { formatDateTime, formatMoney, PORTAL_MESSAGES } from "./i18n.ts";
import { frameOf, sendPortalNotFound, sendPortalPage } from "./render.tsx";
import { IdParams } from "./schemas.ts";
import { Layout } from "./views/layout.tsx";
import { StatePill } from "./views/payments-table.tsx";

export function paymentDetailRoute(fastify: FastifyInstance, { deps }: PortalContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get("/payments/:id", { schema: { params: IdParams }, attachValidation: true }, async (request, reply) => {
    const session = request.portal.session!;
    const { lang } = request.portal;
    const payment = request.validationError ? undefined : await findPayment(deps.db, session.merchantId, request.params.id);
    if (!payment) return sendPortalNotFound(request, reply);
    const m = PORTAL_MESSAGES[lang];
    const fields = MESSAGES[lang].fields as Record<string, string>;
    return sendPortalPage(reply, 200, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={m.payments.paymentTitle} section="payments">
        <h1>
          {`${m.payments.paymentTitle} ${formatMoney(payment.amount, payment.currency, lang)} `}
          <StatePill state={payment.state} lang={lang} />
        </h1>
        <div class="grid two">
          <section class="card">
            <dl class="facts">
              <dt>{m.payment.date}</dt>
              <dd>{formatDateTime(payment.createdAt, lang)}</dd>
              <dt>{m.payment.link}</dt>
              <dd>
                <a class="mono" href={`/portal/links/${payment.linkReference}`}>
                  {payment.linkReference}
                </a>
                {payment.linkDescription ? <span class="hint">{payment.linkDescription}</span> : null}
              </dd>
              <dt>{m.payments.checkoutReference}</dt>
              <dd class="mono">{payment.checkoutReference}</dd>
              <dt>{m.payments.payfacReference}</dt>
              <dd class="mono">{payment.payfacReference ?? m.none}</dd>
              <dt>{m.payment.card}</dt>
              <dd class="mono">
                {payment.cardMasked ? `${payment.cardBrand ?? ""} ${payment.cardMasked} ${payment.cardExpiry ?? ""}`.trim() : m.none}
              </dd>
              <dt>{m.payments.authCode}</dt>
              <dd class="mono">{payment.authCode ?? m.none}</dd>
              {payment.reason && payment.state !== "approved" ? (
                <>
                  <dt>{m.payments.reason}</dt>
                  <dd>{payment.reason}</dd>
                </>
              ) : null}
            </dl>
          </section>
          <section class="card" aria-labelledby="answers-title">
            <h2 id="answers-title">{m.payments.answers}</h2>
            {payment.answers.length === 0 ? (
              <p class="muted">{m.none}</p>
            ) : (
              <dl class="facts">
                {payment.answers.map((a) => (
                  <>
                    <dt key={`${a.field}-t`}>{fields[a.field] ?? a.field}</dt>
                    <dd key={`${a.field}-d`}>{a.value}</dd>
                  </>
                ))}
              </dl>
            )}
          </section>
        </div>
        <section class="card" aria-labelledby="refunds-title">
          <h2 id="refunds-title">{m.payments.refunds}</h2>
          <p class="muted">{m.payments.noRefunds}</p>
        </section>
      </Layout>
    ));
  });
}
