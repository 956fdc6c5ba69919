/** @jsxRuntime automatic @jsxImportSource preact */
// The checkout of a terminal with a real processor (docs/processors.md#how-a-payment-goes):
//   POST /pay/{reference}                            shopper fields only → 303 to the processor's page
//   GET  /pay/{reference}/return/{checkoutReference}  the shopper back: the processor is asked, never the query
// Registered at /checkout for sessions alike. The card is typed on the processor's page only: a
// post that carries card fields is refused, and its body is never logged.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import Type from "typebox";
import { type CheckoutLink, loadCheckoutLink } from "../db/checkout-repository.ts";
import { findHostedAttempt } from "../db/reservations-repository.ts";
import { findSubmission } from "../db/submissions-repository.ts";
import { errorName } from "../payments/error-name.ts";
import { askProcessor, hostedAddresses, startHostedCheckout } from "../services/hosted-payment.ts";
import type { Lang } from "../web/i18n.ts";
import { crossSite } from "../web/security.ts";
import { type PageTheme, pageTheme } from "../web/theme.ts";
import type { CheckoutContext } from "./deps.ts";
import { formText, readSavedCardForm } from "./form.ts";
import { issueFormToken, verifyFormToken } from "./form-token.ts";
import { MESSAGES, requestedLang } from "./i18n.ts";
import { priceOf, samePrice, sendCheckoutPage, sendPriceChanged, sendStatusPage } from "./link-pages.tsx";
import { sendCheckoutNotFound, sendMessagePage, sendPage } from "./page-response.tsx";
import { withCheckoutReference } from "./return-url.ts";
import { ReceiptPage } from "./views/receipt-page.tsx";
import { MessagePage } from "./views/status-page.tsx";

/** Names of fields that hold card data: never accepted where the processor takes the card. */
const CARD_FIELD = /card|cvc|cvv|expir|^pan$/i;

/** How often the "processing" page asks again, in seconds. */
const PROCESSING_REFRESH_SECONDS = 3;

interface PageContext {
  lang: Lang;
  theme: PageTheme;
}

/** The form of a real processor's terminal, posted: shopper fields checked, then to the processor's page. */
export async function payOnProcessorPage(
  context: CheckoutContext,
  request: FastifyRequest,
  reply: FastifyReply,
  link: CheckoutLink,
  body: Record<string, unknown>,
  { lang, theme }: PageContext,
) {
  const { deps, formKey } = context;
  const m = MESSAGES[lang];
  if (Object.keys(body).some((name) => CARD_FIELD.test(name))) {
    return sendMessagePage(reply, 400, lang, theme, m.badRequestTitle, m.cardFieldsRefusedText);
  }
  const now = deps.now();
  const form = readSavedCardForm(body, link.terms.shopperInfo);
  const token = verifyFormToken(formKey, link.reference, formText(body, "csrfToken"), now);
  if (!token || crossSite(request, deps.publicBaseUrl)) {
    const formToken = issueFormToken(formKey, link.reference, now, priceOf(link));
    return sendCheckoutPage(reply, 403, link, {
      lang,
      theme,
      formToken,
      values: form.redisplay,
      errors: [],
      alert: { kind: "expired-form" },
    });
  }
  if (!samePrice(token, link)) return sendPriceChanged(reply, formKey, link, { lang, theme, values: form.redisplay }, now);
  if (!form.ok) {
    const formToken = formText(body, "csrfToken");
    return sendCheckoutPage(reply, 422, link, { lang, theme, formToken, values: form.redisplay, errors: form.errors });
  }
  const started = await startHostedCheckout(
    { db: deps.db, now: deps.now, log: request.log, processors: deps.processors, publicBaseUrl: deps.publicBaseUrl },
    link,
    {
      answers: form.value.answers,
      attemptKey: token.attemptKey,
      shownPrice: { amount: token.amount, currency: token.currency, cart: token.cart },
      language: lang,
    },
  );
  switch (started.kind) {
    case "redirect":
      return reply.code(303).header("location", started.url).header("cache-control", "no-store").send();
    case "failed":
      return sendMessagePage(reply, 502, lang, theme, m.errorPageTitle, m.hostedUnavailableText);
    case "no-adapter":
      return sendMessagePage(reply, 503, lang, theme, m.errorPageTitle, m.hostedNotAvailableText);
    case "unavailable": {
      const current = (await loadCheckoutLink(deps.db, link.reference, { kind: deps.kind })) ?? link;
      if (!samePrice(token, current)) return sendPriceChanged(reply, formKey, current, { lang, theme, values: form.redisplay }, deps.now());
      // A session has one sale, and another tab of it may be paying; a link's slots are all held or sold.
      if (link.session) return sendMessagePage(reply, 202, lang, theme, m.pendingTitle, m.sessionInFlightText);
      return sendStatusPage(reply, current, lang, theme, "Used", m.soldOutInFlight);
    }
  }
}

const ReturnParams = Type.Object({
  reference: Type.String({ minLength: 1, maxLength: 200 }),
  checkoutReference: Type.String({ minLength: 1, maxLength: 100 }),
});

/** GET …/return/{checkoutReference}: where the processor sends the shopper back. */
export function hostedReturnRoute(fastify: FastifyInstance, { deps }: CheckoutContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    "/:reference/return/:checkoutReference",
    { schema: { hide: true, params: ReturnParams }, attachValidation: true },
    async (request, reply) => {
      const { reference, checkoutReference } = request.params;
      const link = request.validationError ? undefined : await loadCheckoutLink(deps.db, reference, { kind: deps.kind });
      const attempt = link && (await findHostedAttempt(deps.db, link.reference, checkoutReference));
      if (!link || !attempt) return sendCheckoutNotFound(request, reply);
      const lang = requestedLang(request) ?? link.terms.culture;
      const theme = pageTheme(link);
      const m = MESSAGES[lang];

      if (attempt.state === "pending") {
        try {
          const processor = await deps.processors.hostedFor(link.terms.terminalIdentifier);
          const returnQuery = new URLSearchParams(request.url.includes("?") ? request.url.slice(request.url.indexOf("?") + 1) : "");
          await askProcessor({ db: deps.db, now: deps.now, log: request.log }, processor, link, attempt, returnQuery);
        } catch (error) {
          // The processor cannot be asked now: the page asks again; its notification may come first.
          request.log.warn({ checkoutReference, error: errorName(error) }, "could not ask the processor for a hosted payment's outcome");
        }
      }
      const submission = await findSubmission(deps.db, link.reference, checkoutReference);
      if (submission?.state === "approved") {
        if (link.terms.returnUrl) {
          // A session's return names the session, as its webhooks and status endpoint do.
          const target = withCheckoutReference(link.terms.returnUrl, link.session ? link.reference : checkoutReference);
          return reply.code(303).header("location", target).header("cache-control", "no-store").send();
        }
        const tokenize = link.terms.type === "TokenizeByLink";
        return sendPage(reply, 200, (nonce) => (
          <ReceiptPage lang={lang} nonce={nonce} theme={theme} tokenize={tokenize} submission={submission} />
        ));
      }
      if (submission?.state === "pending") {
        // Unknown yet: this page asks again by itself, no JavaScript needed.
        reply.header("refresh", String(PROCESSING_REFRESH_SECONDS));
        return sendMessagePage(reply, 202, lang, theme, m.processingTitle, m.processingText);
      }
      // Closed unpaid, or an approval that came after the link closed (given back at the processor).
      const { page } = hostedAddresses(deps.publicBaseUrl, link, checkoutReference);
      return sendPage(reply, 200, (nonce) => (
        <MessagePage
          lang={lang}
          nonce={nonce}
          theme={theme}
          title={m.notPaidTitle}
          text={submission?.reason === "Sold out" ? m.soldOutWhilePaying : m.notPaidText}
        >
          <p>
            <a href={page}>{m.backToPayment}</a>
          </p>
        </MessagePage>
      ));
    },
  );
}
