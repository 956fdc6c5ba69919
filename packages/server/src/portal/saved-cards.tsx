/** @jsxRuntime automatic @jsxImportSource preact */
// /portal/saved-cards (docs/portal.md#customers): the cards shoppers saved, found by e-mail, name,
// shopper reference or last four; one card's page with its charges' results, the form to charge it
// and the button to disable it. Both ask first (a GET question page, nothing changes there) and go
// through the API's own use cases; charging moves money, so it is for owners and admins.
import { randomUUID } from "node:crypto";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import Type from "typebox";
import { findSavedCardById, listSavedCards, type SavedCardSummary } from "../db/customers-repository.ts";
import { findPayment } from "../db/payments-read-repository.ts";
import { findSavedCard, type SavedCard } from "../db/saved-cards-repository.ts";
import { AppError } from "../domain/errors.ts";
import { parseDisplayAmount } from "../domain/money/display-amount.ts";
import { checkMerchantReference } from "../domain/payments/rules.ts";
import { may } from "../domain/portal/roles.ts";
import { chargeSavedCard, type TokenCharge } from "../services/charge-token.ts";
import { disableSavedCard } from "../services/disable-token.ts";
import { ATTEMPT_PATTERN, type AttemptResult, oncePerAttempt } from "../services/once-per-attempt.ts";
import { formatMoney } from "../web/i18n.ts";
import { customerHref } from "./customer-id.ts";
import type { PortalContext } from "./deps.ts";
import { asSentence, errorText } from "./error-text.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { frameOf, sendMessagePage, sendPortalNotFound, sendPortalPage } from "./render.tsx";
import { formField, portalActor } from "./request-state.ts";
import { IdParams } from "./schemas.ts";
import { cardName, declineReasonText } from "./views/card.tsx";
import { sendConfirmPage } from "./views/confirm.tsx";
import { Problem } from "./views/form-bits.tsx";
import { Layout } from "./views/layout.tsx";
import { SavedCardsTable } from "./views/saved-cards-table.tsx";
import { SearchForm } from "./views/search-form.tsx";

const SearchQuery = Type.Object({ search: Type.Optional(Type.String({ maxLength: 200 })), lang: Type.Optional(Type.String()) });
const CURRENCIES = ["ISK", "EUR", "USD", "GBP"];

/** What the charge form holds, as typed. */
interface ChargeForm {
  amount: string;
  currency: string;
  reference: string;
}

export function savedCardsRoutes(fastify: FastifyInstance, { deps }: PortalContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const options = { schema: { params: IdParams }, attachValidation: true };

  app.get("/saved-cards", { schema: { querystring: SearchQuery } }, async (request, reply) => {
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang];
    const search = request.query.search?.trim() || undefined;
    const cards = await listSavedCards(deps.db, request.portal.session!.merchantId, { search });
    return sendPortalPage(reply, 200, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={m.savedCards.title} section="saved-cards">
        <h1>{m.savedCards.title}</h1>
        <p class="muted">{m.savedCards.intro}</p>
        <SearchForm action="/portal/saved-cards" label={m.savedCards.search} button={m.customers.show} value={search} />
        <SavedCardsTable cards={cards} lang={lang} customerHref={customerHref} />
      </Layout>
    ));
  });

  /** The card of this merchant by its id, with what charging needs; undefined: a 404. */
  async function cardOf(request: FastifyRequest, id: string) {
    if (request.validationError) return undefined;
    const merchantId = request.portal.session!.merchantId;
    const summary = await findSavedCardById(deps.db, merchantId, id);
    const card = summary && (await findSavedCard(deps.db, merchantId, summary.token));
    return card && summary && { summary, card };
  }

  async function sendCard(
    request: FastifyRequest,
    reply: FastifyReply,
    found: { summary: SavedCardSummary; card: SavedCard },
    status: number,
    form?: ChargeForm,
    problems = new Map<string, string>(),
  ) {
    const session = request.portal.session!;
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang];
    const s = m.savedCards;
    const { summary, card } = found;
    const name = cardName(summary.brand, summary.masked) ?? m.none;
    const path = `/portal/saved-cards/${summary.id}`;
    const chargedRef = formField(request.query, "charged");
    const charged = chargedRef ? await findPayment(deps.db, session.merchantId, chargedRef) : undefined;
    const mayCharge = may(session.role, "payments.manage");
    const customer = customerHref(summary);
    const currencies = [...new Set([card.currency, ...CURRENCIES])];
    const chosen = form?.currency ?? card.currency;
    const described = (id: string) => (problems.has(id) ? `${id}-error` : undefined);
    return sendPortalPage(reply, status, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={name} section="saved-cards">
        <h1>{name}</h1>
        {charged && charged.source === "token" ? (
          <div class={`alert ${charged.state === "approved" ? "ok" : "bad"}`} role="status" data-charge-result={charged.state}>
            {charged.state === "approved"
              ? s.approved(formatMoney(charged.amount, charged.currency, lang))
              : s.declined(formatMoney(charged.amount, charged.currency, lang), declineReasonText(lang, charged.reason ?? ""))}{" "}
            <a href={`/portal/payments/${charged.checkoutReference}`}>{s.seePayment}</a>
          </div>
        ) : null}
        {formField(request.query, "underway") === "1" ? (
          <div class="alert" role="status">
            {s.underWay}
          </div>
        ) : null}
        {formField(request.query, "disabled") === "1" ? (
          <div class="alert ok" role="status">
            {s.disabledDone}
          </div>
        ) : null}
        <section class="card">
          <dl class="facts">
            <dt>{s.card}</dt>
            <dd>
              {name}
              {summary.masked ? <span class="hint mono">{summary.masked}</span> : null}
            </dd>
            <dt>{s.expiry}</dt>
            <dd>{summary.expiry || m.none}</dd>
            <dt>{s.status}</dt>
            <dd>
              <span class={`pill ${summary.disabled ? "bad" : "ok"}`}>{summary.disabled ? s.disabled : s.active}</span>
            </dd>
            <dt>{s.customer}</dt>
            <dd>
              {customer ? <a href={customer}>{summary.email ?? summary.reference}</a> : m.none}
              {summary.name ? <span class="hint">{summary.name}</span> : null}
            </dd>
          </dl>
        </section>
        {summary.disabled ? (
          <p class="muted">{s.disabledNote}</p>
        ) : mayCharge ? (
          <>
            <section class="card" aria-labelledby="charge-title">
              <h2 id="charge-title">{s.chargeTitle}</h2>
              <form method="get" action={`${path}/charge`} class="row" novalidate>
                <div class="field">
                  <label for="charge-amount">{s.amount}</label>
                  <input
                    id="charge-amount"
                    name="amount"
                    inputmode="decimal"
                    required
                    value={form?.amount ?? ""}
                    aria-invalid={problems.has("charge-amount") ? "true" : undefined}
                    aria-describedby={described("charge-amount")}
                  />
                  <Problem id="charge-amount" problems={problems} />
                </div>
                <div class="field">
                  <label for="charge-currency">{s.currency}</label>
                  <select id="charge-currency" name="currency" aria-describedby={described("charge-currency")}>
                    {currencies.map((currency) => (
                      <option key={currency} value={currency} selected={currency === chosen}>
                        {currency}
                      </option>
                    ))}
                  </select>
                  <Problem id="charge-currency" problems={problems} />
                </div>
                <div class="field">
                  <label for="charge-reference">{s.reference}</label>
                  <input
                    id="charge-reference"
                    name="reference"
                    maxlength={200}
                    required
                    value={form?.reference ?? ""}
                    aria-invalid={problems.has("charge-reference") ? "true" : undefined}
                    aria-describedby={problems.has("charge-reference") ? "charge-reference-error" : "charge-reference-hint"}
                  />
                  <span class="hint" id="charge-reference-hint">
                    {s.referenceHint}
                  </span>
                  <Problem id="charge-reference" problems={problems} />
                </div>
                <div class="field">
                  <button type="submit">{s.chargeButton}</button>
                </div>
              </form>
            </section>
            <p>
              <a class="button danger" href={`${path}/disable`}>
                {s.disableButton}
              </a>
            </p>
          </>
        ) : null}
      </Layout>
    ));
  }

  app.get("/saved-cards/:id", options, async (request, reply) => {
    const found = await cardOf(request, request.params.id);
    return found ? sendCard(request, reply, found, 200) : sendPortalNotFound(request, reply);
  });

  /** The charge form read: the amount in the page's language, the reference by the API's rule. */
  function readCharge(request: FastifyRequest, source: unknown) {
    const lang = request.portal.lang;
    const s = PORTAL_MESSAGES[lang].savedCards;
    const form: ChargeForm = {
      amount: formField(source, "amount"),
      currency: formField(source, "currency"),
      reference: formField(source, "reference"),
    };
    const problems = new Map<string, string>();
    const currency = CURRENCIES.includes(form.currency) ? form.currency : null;
    if (!currency) problems.set("charge-currency", s.problems.currency);
    const amount = currency ? parseDisplayAmount(form.amount, currency, lang) : null;
    if (currency && (amount === null || amount <= 0)) problems.set("charge-amount", s.problems.amount);
    try {
      checkMerchantReference("reference", form.reference);
    } catch {
      problems.set("charge-reference", s.problems.reference);
    }
    return { form, problems, amount: amount ?? 0, currency: currency ?? "" };
  }

  function refused(request: FastifyRequest, reply: FastifyReply) {
    const errors = PORTAL_MESSAGES[request.portal.lang].errors;
    return sendMessagePage(request, reply, 403, errors.notAllowedTitle, errors.notAllowedText);
  }

  // The question before the charge: amount and card, stated; its form carries a one-time attempt.
  app.get("/saved-cards/:id/charge", options, async (request, reply) => {
    const found = await cardOf(request, request.params.id);
    if (!found) return sendPortalNotFound(request, reply);
    if (!may(request.portal.session!.role, "payments.manage")) return refused(request, reply);
    const { form, problems, amount, currency } = readCharge(request, request.query);
    if (problems.size > 0) return sendCard(request, reply, found, 400, form, problems);
    const s = PORTAL_MESSAGES[request.portal.lang].savedCards;
    const path = `/portal/saved-cards/${found.summary.id}`;
    const name = cardName(found.summary.brand, found.summary.masked) ?? "";
    return sendConfirmPage(request, reply, {
      question: s.confirmCharge(formatMoney(amount, currency, request.portal.lang), name),
      consequence: s.confirmChargeText,
      action: `${path}/charge`,
      button: s.chargeConfirmButton,
      back: path,
      section: "saved-cards",
      fields: { ...form, attempt: randomUUID() },
    });
  });

  app.post("/saved-cards/:id/charge", { ...options, config: { portalAction: "payments.manage" } }, async (request, reply) => {
    const found = await cardOf(request, request.params.id);
    if (!found) return sendPortalNotFound(request, reply);
    const { form, problems, amount, currency } = readCharge(request, request.body);
    if (problems.size > 0) return sendCard(request, reply, found, 400, form, problems);
    const attempt = formField(request.body, "attempt");
    const path = `/portal/saved-cards/${found.summary.id}`;
    if (!ATTEMPT_PATTERN.test(attempt)) return sendCard(request, reply, found, 400, form);
    const input = {
      terminalIdentifier: found.card.terminalIdentifier,
      amount,
      currency,
      reference: form.reference,
      tokenDetails: { tokenValue: found.card.token },
    };
    const { merchantId } = found.card;
    const afterSale = { ...deps, log: request.log };
    let result: AttemptResult;
    try {
      result = await oncePerAttempt<TokenCharge>(
        deps,
        merchantId,
        "charge",
        attempt,
        input,
        (keyed) => chargeSavedCard(afterSale, merchantId, portalActor(request), input, keyed),
        (charge) => charge.payment.checkoutReference,
      );
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const text = asSentence(errorText(error, "charge", request.portal.lang));
      return sendCard(request, reply, found, 400, form, new Map([["charge-amount", text]]));
    }
    if (result.kind === "underWay") return reply.redirect(`${path}?underway=1`, 303);
    return reply.redirect(`${path}?charged=${result.answer}`, 303);
  });

  app.get("/saved-cards/:id/disable", options, async (request, reply) => {
    const found = await cardOf(request, request.params.id);
    if (!found || found.summary.disabled) return sendPortalNotFound(request, reply);
    if (!may(request.portal.session!.role, "payments.manage")) return refused(request, reply);
    const s = PORTAL_MESSAGES[request.portal.lang].savedCards;
    const path = `/portal/saved-cards/${found.summary.id}`;
    const name = cardName(found.summary.brand, found.summary.masked) ?? "";
    return sendConfirmPage(request, reply, {
      question: s.confirmDisable(name),
      consequence: s.confirmDisableText,
      action: `${path}/disable`,
      button: s.disableButton,
      back: path,
      section: "saved-cards",
    });
  });

  app.post("/saved-cards/:id/disable", { ...options, config: { portalAction: "payments.manage" } }, async (request, reply) => {
    const found = await cardOf(request, request.params.id);
    if (!found) return sendPortalNotFound(request, reply);
    await disableSavedCard({ ...deps, log: request.log }, found.card.merchantId, portalActor(request), found.card.token);
    return reply.redirect(`/portal/saved-cards/${found.summary.id}?disabled=1`, 303);
  });
}
