/** @jsxRuntime automatic @jsxImportSource preact */
// GET /portal/payments/{checkoutReference} (docs/portal.md#payments): one payment — a link sale
// or a saved-card charge — with its link or reference, card, result, the shopper's answers and its
// refunds, and the forms to refund and reverse it; a manual-capture payment also shows its captures
// and the forms to capture and cancel it.
import { randomUUID } from "node:crypto";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { capturesOf, readBalance } from "../db/captures-repository.ts";
import { disputesOf } from "../db/disputes-repository.ts";
import type { KeyedEffect } from "../db/idempotency-repository.ts";
import { findPayment, type PaymentRow } from "../db/payments-read-repository.ts";
import { findPayment as findAfterSalePayment } from "../db/payments-repository.ts";
import { findRefundLimit } from "../db/portal-users-repository.ts";
import { refundsOf } from "../db/refunds-repository.ts";
import { AppError } from "../domain/errors.ts";
import { parseDisplayAmount } from "../domain/money/display-amount.ts";
import { authorisationState, capturedAmount, untouchedBalance } from "../domain/payments/capture.ts";
import { REFUND_REASONS } from "../domain/payments/rules.ts";
import { may, refundWithinLimit } from "../domain/portal/roles.ts";
import { captureOrAdjust } from "../services/capture.ts";
import type { ModificationReceipt } from "../services/modification.ts";
import { ATTEMPT_PATTERN, oncePerAttempt } from "../services/once-per-attempt.ts";
import { refundPayment } from "../services/refund.ts";
import { reversePayment } from "../services/reverse.ts";
import { formatDateTime, formatMoney } from "../web/i18n.ts";
import { shopperFieldLabel } from "../web/shopper-field-labels.ts";
import type { PortalContext } from "./deps.ts";
import { asSentence, errorText } from "./error-text.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { frameOf, sendMessagePage, sendPortalNotFound, sendPortalPage } from "./render.tsx";
import { formField, portalActor } from "./request-state.ts";
import { IdParams, PaymentActionParams } from "./schemas.ts";
import { Captures } from "./views/capture.tsx";
import { cardName, declineReasonText } from "./views/card.tsx";
import { sendConfirmPage } from "./views/confirm.tsx";
import { Disputes } from "./views/disputes.tsx";
import { Layout } from "./views/layout.tsx";
import { PaymentReference, StatePill } from "./views/payments-table.tsx";
import { Refunds } from "./views/refunds.tsx";

export function paymentDetailRoute(fastify: FastifyInstance, { deps }: PortalContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const options = { schema: { params: IdParams }, attachValidation: true };

  /** A manual-capture payment's authorisation as it stands: for the capture card and what refunds may take. */
  async function captureOf(merchantId: string, payfacReference: string) {
    const payment = await findAfterSalePayment(deps.db, merchantId, payfacReference);
    if (!payment?.capture) return undefined;
    const balance = (await readBalance(deps.db, payfacReference)) ?? untouchedBalance({ ...payment, capture: payment.capture });
    const now = deps.now();
    return {
      manual: payment.capture.manual,
      state: authorisationState(balance, now),
      authorised: balance.amount,
      captured: capturedAmount(balance, now),
      left: balance.amount - (balance.capturedAmount ?? balance.amount) - balance.captureReservedAmount,
      captures: await capturesOf(deps.db, merchantId, payfacReference),
    };
  }

  /**
   * Why this person may not refund `amount` (support above the merchant's limit), or undefined.
   * Asked at the question and again at the refund itself: the limit may change in between.
   */
  async function refundLimitProblem(request: FastifyRequest, currency: string, amount: number): Promise<string | undefined> {
    const { role, merchantId } = request.portal.session!;
    if (role !== "support") return undefined;
    const limit = await findRefundLimit(deps.db, merchantId, currency);
    if (refundWithinLimit(role, amount, limit)) return undefined;
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang].payments;
    return limit === null ? m.refundNoLimit(currency) : m.refundOverLimit(formatMoney(limit, currency, lang));
  }

  /** What of a payment's money went back, is captured, and is left to refund. */
  async function moneyOf(merchantId: string, payment: PaymentRow) {
    const refunds = payment.payfacReference ? await refundsOf(deps.db, merchantId, payment.payfacReference) : [];
    const taken = refunds.filter((r) => r.state !== "failed").reduce((sum, r) => sum + r.amount, 0);
    const capture =
      payment.payfacReference && payment.state === "approved" ? await captureOf(merchantId, payment.payfacReference) : undefined;
    // A payment captured later: only captured money can be refunded.
    const refundable = capture ? capture.captured : payment.amount;
    const left = payment.state === "approved" && payment.amount > 0 ? Math.max(0, refundable - taken) : null;
    const refunded = refunds.filter((r) => r.state === "succeeded").reduce((sum, r) => sum + r.amount, 0);
    return { refunds, capture, left, refunded };
  }

  /**
   * The payment's page; `problem` is a refund (or capture) the services refused, shown beside the
   * refund (or capture) form.
   */
  async function sendPayment(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    status: number,
    problem?: string,
    problemAt: "refund" | "capture" = "refund",
  ) {
    const session = request.portal.session!;
    const { lang } = request.portal;
    const payment = await findPayment(deps.db, session.merchantId, id);
    if (!payment) return sendPortalNotFound(request, reply);
    const m = PORTAL_MESSAGES[lang];
    const [{ refunds, capture, left, refunded }, disputes] = await Promise.all([
      moneyOf(session.merchantId, payment),
      payment.payfacReference ? disputesOf(deps.db, session.merchantId, payment.payfacReference) : [],
    ]);
    // What the last action did, said on the page it led back to.
    const done =
      formField(request.query, "refunded") === "1" ? "refundDone" : formField(request.query, "reversed") === "1" ? "reverseDone" : null;
    const captureDone = formField(request.query, "captured") === "1";
    return sendPortalPage(reply, status, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={m.payments.paymentTitle} section="payments">
        <h1>
          {`${m.payments.paymentTitle} ${formatMoney(payment.amount, payment.currency, lang)} `}
          <StatePill
            state={payment.state}
            lang={lang}
            amount={payment.amount}
            refunded={refunded}
            authorisation={capture?.manual ? capture : undefined}
            disputed={disputes.length > 0}
          />
        </h1>
        <div class="grid two">
          <section class="card">
            <dl class="facts">
              <dt>{m.payment.date}</dt>
              <dd>{formatDateTime(payment.createdAt, lang)}</dd>
              <dt>{m.payment.type}</dt>
              <dd data-source={payment.source}>{m.payment.sources[payment.source]}</dd>
              <dt>{payment.linkReference !== null ? m.payment.link : m.payment.merchantReference}</dt>
              <dd>
                <PaymentReference payment={payment} />
              </dd>
              <dt>{m.payments.checkoutReference}</dt>
              <dd class="mono">{payment.checkoutReference}</dd>
              <dt>{m.payments.payfacReference}</dt>
              <dd class="mono">{payment.payfacReference ?? m.none}</dd>
              <dt>{m.payment.card}</dt>
              <dd>
                {cardName(payment.cardBrand, payment.cardMasked) ?? m.none}
                {payment.cardMasked ? (
                  <span class="hint mono">
                    {payment.cardMasked}
                    {payment.cardExpiry ? ` · ${m.payments.expires(payment.cardExpiry)}` : ""}
                  </span>
                ) : null}
              </dd>
              <dt>{m.payments.authCode}</dt>
              <dd class="mono">{payment.authCode ?? m.none}</dd>
              {payment.reason && payment.state !== "approved" ? (
                <>
                  <dt>{m.payments.reason}</dt>
                  <dd>{declineReasonText(lang, payment.reason)}</dd>
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
                    <dt key={`${a.field}-t`}>{shopperFieldLabel(lang, a.field)}</dt>
                    <dd key={`${a.field}-d`}>{a.value}</dd>
                  </>
                ))}
              </dl>
            )}
          </section>
        </div>
        {done ? (
          <div class="alert ok" role="status">
            {m.payments[done]}
          </div>
        ) : null}
        {captureDone ? (
          <div class="alert ok" role="status">
            {m.payments.captureDone}
          </div>
        ) : null}
        {disputes.length > 0 ? <Disputes lang={lang} disputes={disputes} /> : null}
        {capture?.manual ? (
          <Captures
            lang={lang}
            csrf={session.csrfToken}
            action={`/portal/payments/${payment.checkoutReference}`}
            currency={payment.currency}
            {...capture}
            problem={problemAt === "capture" ? problem : undefined}
            canManage={may(session.role, "payments.manage")}
          />
        ) : null}
        <Refunds
          lang={lang}
          action={`/portal/payments/${payment.checkoutReference}`}
          refunds={refunds}
          left={left}
          currency={payment.currency}
          leftText={left === null ? "" : formatMoney(left, payment.currency, lang)}
          problem={problemAt === "refund" ? problem : undefined}
          canRefund={may(session.role, "payments.refund")}
          canReverse={may(session.role, "payments.manage")}
        />
      </Layout>
    ));
  }

  app.get("/payments/:id", options, async (request, reply) =>
    request.validationError ? sendPortalNotFound(request, reply) : sendPayment(request, reply, request.params.id, 200),
  );

  // Refund and reverse (and Cancel, which is reverse) ask first: their buttons lead to a question
  // page (a GET: the refund's amount is read and shown there, nothing changes) whose form posts.
  app.get("/payments/:id/:action", { schema: { params: PaymentActionParams }, attachValidation: true }, async (request, reply) => {
    const session = request.portal.session!;
    const payment = request.validationError ? undefined : await findPayment(deps.db, session.merchantId, request.params.id);
    if (!payment?.payfacReference || payment.state !== "approved") return sendPortalNotFound(request, reply);
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang].payments;
    if (!may(session.role, request.params.action === "reverse" ? "payments.manage" : "payments.refund")) {
      const errors = PORTAL_MESSAGES[lang].errors;
      return sendMessagePage(request, reply, 403, errors.notAllowedTitle, errors.notAllowedText);
    }
    const path = `/portal/payments/${payment.checkoutReference}`;
    if (request.params.action === "reverse") {
      const question = { question: m.confirmReverse, consequence: m.confirmReverseText, button: m.reverseButton };
      const fields = { attempt: randomUUID() };
      return sendConfirmPage(request, reply, { ...question, action: `${path}/reverse`, back: path, section: "payments", fields });
    }
    const typed = formField(request.query, "amount");
    const amount = parseDisplayAmount(typed, payment.currency, lang);
    if (amount === null) return sendPayment(request, reply, payment.checkoutReference, 400, PORTAL_MESSAGES[lang].form.problems.notAmount!);
    // More than is left is refused here, before the question (the refund's own check stays the last word).
    const { left } = await moneyOf(session.merchantId, payment);
    if (left !== null && amount > left) {
      return sendPayment(request, reply, payment.checkoutReference, 400, m.refundTooMuch(formatMoney(left, payment.currency, lang)));
    }
    const limitProblem = await refundLimitProblem(request, payment.currency, amount);
    if (limitProblem) return sendPayment(request, reply, payment.checkoutReference, 403, limitProblem);
    const refundReason = REFUND_REASONS.find((r) => r === formField(request.query, "refundReason")) ?? "OTHER";
    return sendConfirmPage(request, reply, {
      question: m.confirmRefund(formatMoney(amount, payment.currency, lang)),
      consequence: m.confirmRefundText,
      action: `${path}/refund`,
      button: m.refundButton,
      back: path,
      section: "payments",
      fields: { amount: typed, refundReason, attempt: randomUUID() },
    });
  });

  // Refund and reverse go through the API's own services (the same rules, reservations and Refund
  // webhooks), once per question asked (its one-time attempt); a refusal (too much, nothing left)
  // is shown on the page.
  for (const action of ["refund", "reverse"] as const) {
    const portalAction = action === "refund" ? "payments.refund" : "payments.manage";
    app.post(`/payments/:id/${action}`, { ...options, config: { portalAction } }, async (request, reply) => {
      const session = request.portal.session!;
      const payment = request.validationError ? undefined : await findPayment(deps.db, session.merchantId, request.params.id);
      if (!payment?.payfacReference) return sendPortalNotFound(request, reply);
      const afterSale = { ...deps, log: request.log };
      const attempt = formField(request.body, "attempt");
      const lang = request.portal.lang;
      if (!ATTEMPT_PATTERN.test(attempt))
        return sendPayment(request, reply, payment.checkoutReference, 400, PORTAL_MESSAGES[lang].payments.askAgain);
      const actor = portalActor(request);
      const { merchantId } = session;
      try {
        if (action === "refund") {
          const amount = parseDisplayAmount(formField(request.body, "amount"), payment.currency, request.portal.lang);
          if (amount === null) {
            const text = PORTAL_MESSAGES[request.portal.lang].form.problems.notAmount!;
            return sendPayment(request, reply, payment.checkoutReference, 400, text);
          }
          const limitProblem = await refundLimitProblem(request, payment.currency, amount);
          if (limitProblem) return sendPayment(request, reply, payment.checkoutReference, 403, limitProblem);
          const reason = REFUND_REASONS.find((r) => r === formField(request.body, "refundReason")) ?? "OTHER";
          const input = { payfacReference: payment.payfacReference, amount, currency: payment.currency, refundReason: reason };
          const refund = (keyed: KeyedEffect<ModificationReceipt>) => refundPayment(afterSale, merchantId, actor, input, keyed);
          await oncePerAttempt(deps, merchantId, "refund", attempt, input, refund, (r) => r.payfacReference);
        } else {
          const input = { payfacReference: payment.payfacReference };
          const reverse = (keyed: KeyedEffect<ModificationReceipt>) => reversePayment(afterSale, merchantId, actor, input, keyed);
          await oncePerAttempt(deps, merchantId, "reverse", attempt, input, reverse, (r) => r.payfacReference);
        }
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        return sendPayment(request, reply, payment.checkoutReference, 400, asSentence(errorText(error, action, request.portal.lang)));
      }
      request.log.info({ checkoutReference: payment.checkoutReference, action }, "payment refunded in the portal");
      return reply.redirect(`/portal/payments/${payment.checkoutReference}?${action === "refund" ? "refunded" : "reversed"}=1`, 303);
    });
  }

  // Capture goes through the API's own use case (the same reservation and Capture webhook); Cancel
  // is the reverse action above.
  app.post("/payments/:id/capture", { ...options, config: { portalAction: "payments.manage" } }, async (request, reply) => {
    const session = request.portal.session!;
    const payment = request.validationError ? undefined : await findPayment(deps.db, session.merchantId, request.params.id);
    if (!payment?.payfacReference) return sendPortalNotFound(request, reply);
    const amount = parseDisplayAmount(formField(request.body, "amount"), payment.currency, request.portal.lang);
    if (amount === null) {
      const text = PORTAL_MESSAGES[request.portal.lang].form.problems.notAmount!;
      return sendPayment(request, reply, payment.checkoutReference, 400, text, "capture");
    }
    try {
      const input = { payfacReference: payment.payfacReference, amount, currency: payment.currency };
      await captureOrAdjust({ ...deps, log: request.log }, session.merchantId, portalActor(request), "capture", input);
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const text = asSentence(errorText(error, "capture", request.portal.lang));
      return sendPayment(request, reply, payment.checkoutReference, 400, text, "capture");
    }
    request.log.info({ checkoutReference: payment.checkoutReference }, "payment captured in the portal");
    return reply.redirect(`/portal/payments/${payment.checkoutReference}?captured=1`, 303);
  });
}
