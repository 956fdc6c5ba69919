/** @jsxRuntime automatic @jsxImportSource preact */
// POST /pay/{reference}: the checkout form. Validate → reserve a sale slot → processor → record →
// the result page (or a redirect to the merchant's return URL).
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { loadCheckoutLink } from "../db/checkout-repository.ts";
import { linkStatus } from "../domain/links/status.ts";
import { type PayByLinkDeps, type PaymentRequest, payByLink } from "../services/pay-by-link.ts";
import { chosenSavedCard, offeredSavedCards } from "../services/shopper-saved-cards.ts";
import { isLang } from "../web/i18n.ts";
import { crossSite } from "../web/security.ts";
import { pageTheme } from "../web/theme.ts";
import type { CheckoutContext } from "./deps.ts";
import { type CheckoutFormResult, formText, readCheckoutForm, readSavedCardForm, typedCardNumber } from "./form.ts";
import { issueFormToken, newAttemptKey, verifyFormToken } from "./form-token.ts";
import { payOnProcessorPage } from "./hosted-pay.tsx";
import { MESSAGES, requestedLang } from "./i18n.ts";
import { priceOf, samePrice, sendCheckoutPage, sendPriceChanged, sendStatusPage } from "./link-pages.tsx";
import { sendCheckoutNotFound, sendMessagePage, sendPage } from "./page-response.tsx";
import { withCheckoutReference } from "./return-url.ts";
import { LinkParams, pathRejected } from "./schemas.ts";
import type { CheckoutAlert } from "./views/alerts.tsx";
import { ReceiptPage } from "./views/receipt-page.tsx";
import { StatusPage } from "./views/status-page.tsx";

/** Form bodies larger than this are refused (413) before they are parsed. */
export const FORM_BODY_LIMIT = 64 * 1024;

/** How long a second post of one form waits for the first's result before the 202 page. */
const DUPLICATE_WAIT_MS = 20_000;

export function payRoute(fastify: FastifyInstance, context: CheckoutContext): void {
  const { deps, formKey, brake } = context;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const payDeps = (request: FastifyRequest): PayByLinkDeps => ({
    db: deps.db,
    processor: deps.processor,
    tokenProcessor: deps.tokenProcessor,
    now: deps.now,
    log: request.log,
    duplicateWaitMs: deps.duplicateWaitMs ?? DUPLICATE_WAIT_MS,
    publicBaseUrl: deps.publicBaseUrl,
  });

  const options = { schema: { hide: true, params: LinkParams }, attachValidation: true, bodyLimit: FORM_BODY_LIMIT };
  app.post("/:reference", options, async (request, reply) => {
    const { reference } = request.params;
    const body = formBody(request);
    const link = pathRejected(request) ? undefined : await loadCheckoutLink(deps.db, reference, { kind: deps.kind });
    const postedLang = formText(body ?? {}, "lang");
    if (!link) return sendCheckoutNotFound(request, reply, isLang(postedLang) ? postedLang : undefined);
    const lang = isLang(postedLang) ? postedLang : (requestedLang(request) ?? link.terms.culture);
    const m = MESSAGES[lang];
    const theme = pageTheme(link);
    const now = deps.now();

    // A link that cannot take a payment records nothing, whatever was posted.
    const status = linkStatus(link, now);
    if (status !== "Active") return sendStatusPage(reply, link, lang, theme, status);

    // Card testing: too many declines and rejected forms from one address on this link. The
    // attempt is counted now, before anything else, so posts sent at once cannot all pass.
    const attempt = await brake.take(request, reference, now);
    if (attempt.blocked) {
      reply.header("retry-after", String(attempt.retryAfterSeconds));
      const text = attempt.because === "failures" ? m.tooManyText(Math.ceil(attempt.retryAfterSeconds / 60)) : m.tooManyInFlightText;
      return sendMessagePage(reply, 429, lang, theme, m.tooManyTitle, text);
    }
    try {
      if (body === undefined) return sendMessagePage(reply, 415, lang, theme, m.badRequestTitle, m.badRequestText);
      // A real processor takes the card on its own page.
      if (link.processorType !== "sandbox") return await payOnProcessorPage(context, request, reply, link, body, { lang, theme });

      // A saved card chosen on a session's page: only the shopper fields are read, and the card
      // must be one this page offers (this merchant's, this shopper's, not disabled, not expired).
      const savedCardChoice = formText(body, "savedCard");
      const chosen = savedCardChoice === "" ? undefined : await chosenSavedCard(deps, link, savedCardChoice);
      if (savedCardChoice !== "" && !chosen) {
        await attempt.finish(true);
        return sendMessagePage(reply, 400, lang, theme, m.savedCardRefusedTitle, m.savedCardRefusedText);
      }
      const form: CheckoutFormResult<PaymentRequest["card"]> = chosen
        ? withSavedCard(readSavedCardForm(body, link.terms.shopperInfo), chosen)
        : readCheckoutForm(body, link.terms.shopperInfo, now);
      const savedCards = await offeredSavedCards(deps, link);
      const again = { savedCards, savedCardChoice };
      const token = verifyFormToken(formKey, reference, formText(body, "csrfToken"), now);
      if (!token || crossSite(request, deps.publicBaseUrl)) {
        // Nothing is recorded. The page comes back with a fresh token and the shopper's details.
        return sendCheckoutPage(reply, 403, link, {
          lang,
          theme,
          formToken: issueFormToken(formKey, reference, now, priceOf(link)),
          values: form.redisplay,
          errors: [],
          alert: { kind: "expired-form" },
          ...again,
        });
      }
      if (!samePrice(token, link)) {
        // The merchant changed the price or the items while the page was open: show the new ones, charge nothing.
        return sendPriceChanged(reply, formKey, link, { lang, theme, values: form.redisplay }, now);
      }
      if (!form.ok) {
        await attempt.finish(true);
        // Same token: the attempt has not been used yet. The card number typed comes back in this
        // answer only (never stored, never cached: every page is no-store); the CVC does not.
        return sendCheckoutPage(reply, 422, link, {
          lang,
          theme,
          formToken: formText(body, "csrfToken"),
          values: chosen ? form.redisplay : { ...form.redisplay, ...typedCardNumber(body) },
          errors: form.errors,
          ...again,
        });
      }

      const outcome = await payByLink(payDeps(request), link, {
        ...form.value,
        attemptKey: token.attemptKey,
        shownPrice: { amount: token.amount, currency: token.currency, cart: token.cart },
        language: lang,
      });
      // Before the answer is sent: the shopper's next post must find the attempt given back or counted.
      await attempt.finish(outcome.kind === "declined");
      // The form again, with the shopper's details and a token for a new attempt.
      const formAgain = (status: number, alert: CheckoutAlert) =>
        sendCheckoutPage(reply, status, link, {
          lang,
          theme,
          formToken: issueFormToken(formKey, reference, deps.now(), priceOf(link), newAttemptKey()),
          values: form.redisplay,
          errors: [],
          alert,
          ...again,
        });
      switch (outcome.kind) {
        case "approved": {
          if (link.terms.returnUrl) {
            // A session's return names the session, as its webhooks and status endpoint do.
            const checkoutReference = link.session ? link.reference : outcome.submission.checkoutReference;
            const target = withCheckoutReference(link.terms.returnUrl, checkoutReference);
            return reply.code(303).header("location", target).header("cache-control", "no-store").send();
          }
          const tokenize = link.terms.type === "TokenizeByLink";
          return sendPage(reply, 200, (nonce) => (
            <ReceiptPage lang={lang} nonce={nonce} theme={theme} tokenize={tokenize} submission={outcome.submission} />
          ));
        }
        case "declined":
          return formAgain(402, { kind: "declined", reason: outcome.reason });
        case "failed":
          return formAgain(502, { kind: "failed" });
        case "voided": {
          if (outcome.reason === "Reversed") {
            // The attempt was reversed while this request stalled: like a processor failure, the
            // shopper may simply pay again.
            return formAgain(502, { kind: "failed" });
          }
          const status = outcome.reason === "Link disabled" ? "Disabled" : outcome.reason === "Link expired" ? "Expired" : "Used";
          const extra = status === "Used" ? m.soldOutWhilePaying : m.cancelledWhilePaying;
          if (link.session) return sendStatusPage(reply, link, lang, theme, status, m.cancelledWhilePaying);
          return sendPage(reply, 410, (nonce) => <StatusPage lang={lang} nonce={nonce} theme={theme} status={status} extra={extra} />);
        }
        case "pending":
          return sendMessagePage(reply, 202, lang, theme, m.pendingTitle, m.pendingText);
        case "unconfirmed":
          return sendMessagePage(reply, 202, lang, theme, m.unconfirmedTitle, m.unconfirmedText);
        case "unavailable": {
          // Why: re-read the link. Still Active means every remaining slot is held by a payment in flight.
          const current = (await loadCheckoutLink(deps.db, reference, { kind: deps.kind })) ?? link;
          const now2 = deps.now();
          const currentStatus = linkStatus(current, now2);
          if (currentStatus !== "Active") return sendStatusPage(reply, current, lang, theme, currentStatus);
          // The saved card was disabled after the form was read: nothing was charged.
          if (chosen && !(await chosenSavedCard(deps, current, savedCardChoice))) {
            return sendMessagePage(reply, 400, lang, theme, m.savedCardRefusedTitle, m.savedCardRefusedText);
          }
          if (!samePrice(token, current)) {
            return sendPriceChanged(reply, formKey, current, { lang, theme, values: form.redisplay }, now2);
          }
          // A session has one sale: another tab of it is paying right now.
          if (link.session) return sendMessagePage(reply, 202, lang, theme, m.pendingTitle, m.sessionInFlightText);
          return sendPage(reply, 410, (nonce) => (
            <StatusPage lang={lang} nonce={nonce} theme={theme} status="Used" extra={m.soldOutInFlight} />
          ));
        }
      }
    } finally {
      // Any other way out (a 403, a 409, an error) was no card test: the attempt is given back.
      await attempt.finish(false);
    }
  });
}

/** The shopper fields of a form paid with a saved card, with the card to charge. */
function withSavedCard(
  form: CheckoutFormResult<null>,
  chosen: NonNullable<Awaited<ReturnType<typeof chosenSavedCard>>>,
): CheckoutFormResult<PaymentRequest["card"]> {
  if (!form.ok) return form;
  return { ok: true, redisplay: form.redisplay, value: { ...form.value, card: chosen.choice, cardSummary: chosen.summary } };
}

/** The parsed form, or undefined when the request did not send a form. */
function formBody(request: FastifyRequest): Record<string, unknown> | undefined {
  const type = request.headers["content-type"] ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) return undefined;
  return isFields(request.body) ? request.body : {};
}

/** @fastify/formbody parses into a plain object of strings and string arrays. */
function isFields(body: unknown): body is Record<string, unknown> {
  return body !== null && typeof body === "object";
}
