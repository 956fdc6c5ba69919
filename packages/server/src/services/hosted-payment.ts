// A payment on a real processor's own page (docs/processors.md#how-a-payment-goes):
//
//   reserveSale ──► processor.startHostedPayment ──► 303 to the processor's page
//   (slot held until the page closes)   (no transaction, keyed by the attempt)
//   … the shopper pays there …
//   return address / notification / sweep ──► processor's word ──► recordPaymentOutcome (+ outbox)
//
// The outcome is only ever what the processor says (a status call or a signed notification): the
// shopper's return address decides nothing. It is recorded by the same use case as a card-form
// payment, so a sale, a void after a sell-out and the webhooks follow the same rules.
import pTimeout from "p-timeout";
import { type CheckoutLink, loadCheckoutLink } from "../db/checkout-repository.ts";
import { recordHostedDecline } from "../db/hosted-declines-repository.ts";
import {
  abandonSubmission,
  findHostedAttempt,
  findLateHostedAttempts,
  type HostedAttempt,
  recordHostedStart,
  reserveSale,
} from "../db/reservations-repository.ts";
import { type Answer, findPendingCancels, markCancelConfirmed } from "../db/submissions-repository.ts";
import { checkoutPath } from "../domain/links/url.ts";
import type { ProcessorOutcome } from "../domain/payments/payment-outcome.ts";
import { notifyMailWorker } from "../mail/outbox.ts";
import { errorName } from "../payments/error-name.ts";
import type { HostedOutcome, HostedPaymentProcessor, HostedPaymentRequest } from "../payments/hosted.ts";
import type { AuthorizeResult, CardUsage } from "../payments/processor.ts";
import type { Lang } from "../web/i18n.ts";
import { enqueuePaymentWebhook, notifyWebhookWorker } from "../webhooks/outbox.ts";
import { type AttemptFacts, paymentResultEvents } from "../webhooks/payment-events.ts";
import type { ServiceDeps } from "./deps.ts";
import { type ProcessorDirectory, ProcessorNotConfigured } from "./processor-directory.ts";
import { type RecordedOutcome, recordPaymentOutcome } from "./record-payment-outcome.ts";

/** How long the processor's page takes the payment; the sale slot is held that long. */
export const HOSTED_PAGE_MINUTES = 15;
/** A payment with no outcome this long after its start is asked for (SPEC: two minutes). */
export const LATE_OUTCOME_SECONDS = 120;
/** After its page closed, a processor that still says "open" is believed closed after this grace. */
const CLOSE_GRACE_MS = 5 * 60_000;
const CALL_TIMEOUT_MS = 20_000;

export interface HostedPaymentDeps extends ServiceDeps {
  processors: ProcessorDirectory;
  /** Paylink's public address: the processor sends the shopper back there. */
  publicBaseUrl: string;
}

export interface HostedPaymentForm {
  answers: Answer[];
  /** From the signed form token: one per page shown. */
  attemptKey: string | null;
  shownPrice: { amount: number; currency: string; cart: string };
  language: Lang;
}

export type HostedStart =
  /** To the processor's page (or, for a form posted again, where its first post went). */
  | { kind: "redirect"; url: string }
  /** No sale slot, or no longer open. */
  | { kind: "unavailable" }
  /** The processor did not create its page: nothing can be charged, the slot is released. */
  | { kind: "failed" }
  /** This version has no adapter for the terminal's processor: nothing was reserved. */
  | { kind: "no-adapter" };

/** The addresses of an attempt on Paylink's side: where the shopper comes back to, and the page again. */
export function hostedAddresses(publicBaseUrl: string, link: Pick<CheckoutLink, "reference" | "session">, checkoutReference: string) {
  const page = `${publicBaseUrl}${checkoutPath(link)}`;
  return { page, returnUrl: `${page}/return/${checkoutReference}` };
}

export async function startHostedCheckout(deps: HostedPaymentDeps, link: CheckoutLink, form: HostedPaymentForm): Promise<HostedStart> {
  let processor: HostedPaymentProcessor;
  try {
    processor = await deps.processors.hostedFor(link.terms.terminalIdentifier);
  } catch (error) {
    if (!(error instanceof ProcessorNotConfigured)) throw error;
    deps.log.error(
      { paymentLinkReference: link.reference, error: error.message },
      "a terminal's processor cannot take payments in this version",
    );
    return { kind: "no-adapter" };
  }
  const now = deps.now();
  const hostedUntil = new Date(now.getTime() + HOSTED_PAGE_MINUTES * 60_000);
  const reservation = await reserveSale(deps.db, {
    linkReference: link.reference,
    attemptKey: form.attemptKey,
    shownPrice: form.shownPrice,
    answers: form.answers,
    card: null,
    now,
    hostedUntil,
  });
  if (reservation.kind === "unavailable") return { kind: "unavailable" };
  if (reservation.kind === "duplicate") {
    // The same form posted again: to the page its first post created, or to the outcome.
    const earlier = await findHostedAttempt(deps.db, link.reference, reservation.submission.checkoutReference);
    const { returnUrl } = hostedAddresses(deps.publicBaseUrl, link, reservation.submission.checkoutReference);
    return { kind: "redirect", url: earlier?.state === "pending" && earlier.redirectUrl ? earlier.redirectUrl : returnUrl };
  }

  const { checkoutReference, amount, currency } = reservation;
  const tokenize = link.terms.type === "TokenizeByLink";
  const { page, returnUrl } = hostedAddresses(deps.publicBaseUrl, link, checkoutReference);
  try {
    const signal = AbortSignal.timeout(CALL_TIMEOUT_MS);
    const started = await pTimeout(
      processor.startHostedPayment({
        checkoutReference,
        kind: tokenize ? "tokenization" : "payment",
        amount: tokenize ? 0 : amount,
        currency,
        saveCard: savesCard(link),
        recurringProcessingModel: link.terms.recurringProcessingModel,
        returnUrl,
        cancelUrl: page,
        expiresAt: hostedUntil,
        culture: form.language,
        items: tokenize ? [] : pageItems(link),
        capture: laterCapture(link),
        signal,
      }),
      { milliseconds: CALL_TIMEOUT_MS },
    );
    await recordHostedStart(deps.db, checkoutReference, started);
    return { kind: "redirect", url: started.redirectUrl };
  } catch (error) {
    // No page the shopper can reach: if the processor made one, its answer was lost, nobody has
    // its address and it closes unpaid. The slot is given back at once.
    deps.log.warn(
      { checkoutReference, paymentLinkReference: link.reference, error: errorName(error) },
      "processor did not start a hosted payment",
    );
    await abandonSubmission(deps.db, checkoutReference);
    return { kind: "failed" };
  }
}

export type HostedSettlement =
  | { kind: "recorded"; result: RecordedOutcome }
  /** Already recorded before (another notification, the return, the sweep): nothing written now. */
  | { kind: "known" }
  /** The processor has no final word yet: the page is open, or an approval waits for its token. */
  | { kind: "waiting" }
  /** The page closed unpaid: the attempt is abandoned and its slot released. */
  | { kind: "closed" };

/**
 * Records what the processor said about one attempt. A decline on the processor's page decides
 * nothing: the shopper may try another card on the same page, so only an approval or the page's
 * close ends the attempt. `final` (the page has closed) records an approval even without the
 * token a card save waits for.
 */
export async function settleHostedOutcome(
  deps: ServiceDeps,
  processor: HostedPaymentProcessor,
  link: CheckoutLink,
  attempt: HostedAttempt,
  outcome: HostedOutcome,
  final = false,
): Promise<HostedSettlement> {
  const { checkoutReference } = attempt;
  if (outcome.kind === "declined") await tellDecline(deps, link, checkoutReference, outcome);
  if (outcome.kind === "open" || outcome.kind === "declined") {
    if (!final) return { kind: "waiting" };
    return (await abandonSubmission(deps.db, checkoutReference)) ? { kind: "closed" } : { kind: "known" };
  }
  if (outcome.kind === "expired") return (await abandonSubmission(deps.db, checkoutReference)) ? { kind: "closed" } : { kind: "known" };
  if (savesCard(link) && outcome.token === null) {
    if (!final) return { kind: "waiting" };
    deps.log.error({ checkoutReference }, "processor approved a card save but never reported its token; recorded without one");
  }

  const usage: CardUsage = outcome.card.usage ?? "Credit";
  const brand = outcome.card.brand ?? "";
  const recordedOutcome: ProcessorOutcome = {
    kind: "approved",
    payfacReference: outcome.payfacReference,
    authCode: outcome.authCode,
    token: outcome.token,
    cardBrand: brand,
    cardUsage: usage,
    card: { masked: outcome.card.masked, last4: outcome.card.last4, expiry: outcome.card.expiry },
  };
  const answer: AuthorizeResult = {
    approved: true,
    payfacReference: outcome.payfacReference,
    authCode: outcome.authCode,
    token: outcome.token,
    cardBrand: brand,
    cardUsage: usage,
    paymentMethod: brand,
    threeDAuthenticated: false,
  };
  const result = await recordPaymentOutcome(deps, {
    checkoutReference,
    link,
    outcome: recordedOutcome,
    answer,
    mail: { language: link.terms.culture, publicBaseUrl: null },
  });
  if (!result) return { kind: "known" };
  notifyWebhookWorker();
  notifyMailWorker();
  deps.log.info({ checkoutReference, paymentLinkReference: link.reference, result: result.recorded }, "hosted payment recorded");
  // Approved after the link sold out, expired or was disabled: given back at the processor, once.
  if (result.recorded === "voided") await cancelHostedApproval(deps, processor, checkoutReference, outcome.payfacReference);
  return { kind: "recorded", result };
}

/**
 * The merchant hears of each decline on the processor's page as of one on Paylink's own form: an
 * Authorization webhook with success "false" — once, however often the processor reports it.
 */
async function tellDecline(
  deps: ServiceDeps,
  link: CheckoutLink,
  checkoutReference: string,
  decline: Extract<HostedOutcome, { kind: "declined" }>,
): Promise<void> {
  const usage: CardUsage = decline.card.usage ?? "Credit";
  const brand = decline.card.brand ?? "";
  const declined: AttemptFacts = {
    checkoutReference,
    amount: link.terms.amount,
    currency: link.terms.currency,
    token: null,
    reason: decline.reason,
    cardMasked: decline.card.masked,
    cardLast4: decline.card.last4,
    cardExpiry: decline.card.expiry,
  };
  const answer: AuthorizeResult = {
    approved: false,
    payfacReference: decline.payfacReference,
    reason: decline.reason,
    cardBrand: brand,
    cardUsage: usage,
    paymentMethod: brand,
    threeDAuthenticated: false,
  };
  const told = await recordHostedDecline(deps.db, { payfacReference: decline.payfacReference, checkoutReference }, async (trx) => {
    for (const event of paymentResultEvents(link, declined, "declined", answer)) {
      await enqueuePaymentWebhook(trx, link.merchantId, event.eventType, event.message);
    }
  });
  if (told) notifyWebhookWorker();
}

/**
 * Asks the processor about one attempt and records its answer. Rejects when the processor cannot
 * be asked. `returnQuery`: the shopper's return query, for a processor whose status call needs a
 * value from it (Adyen's `sessionResult`); the processor's answer decides, never the query.
 */
export async function askProcessor(
  deps: ServiceDeps,
  processor: HostedPaymentProcessor,
  link: CheckoutLink,
  attempt: HostedAttempt,
  returnQuery?: URLSearchParams,
): Promise<HostedSettlement> {
  const now = deps.now();
  const closed = now.getTime() > attempt.hostedUntil.getTime() + CLOSE_GRACE_MS;
  if (attempt.processorReference === null) {
    // The processor never answered the start: nobody has the page's address.
    if (now.getTime() <= attempt.hostedUntil.getTime()) return { kind: "waiting" };
    return (await abandonSubmission(deps.db, attempt.checkoutReference)) ? { kind: "closed" } : { kind: "known" };
  }
  const signal = AbortSignal.timeout(CALL_TIMEOUT_MS);
  const outcome = await pTimeout(
    processor.readOutcome({
      checkoutReference: attempt.checkoutReference,
      processorReference: attempt.processorReference,
      signal,
      ...(returnQuery ? { returnQuery } : {}),
    }),
    {
      milliseconds: CALL_TIMEOUT_MS,
    },
  );
  return settleHostedOutcome(deps, processor, link, attempt, outcome, closed);
}

/**
 * The sweep: hosted attempts whose outcome is late are asked for, closed pages release their
 * slots, and owed cancels of approvals that came too late are retried. Never throws; a processor
 * that cannot be asked is tried again by the next sweep.
 */
export async function reconcileHostedAttempts(deps: Pick<HostedPaymentDeps, "db" | "now" | "log" | "processors">): Promise<void> {
  for (const attempt of await findLateHostedAttempts(deps.db, LATE_OUTCOME_SECONDS)) {
    try {
      const link = await loadAttemptLink(deps, attempt.linkReference);
      if (!link) continue;
      await askProcessor(deps, await deps.processors.hostedFor(link.terms.terminalIdentifier), link, attempt);
    } catch (error) {
      deps.log.warn(
        { checkoutReference: attempt.checkoutReference, error: errorName(error) },
        "could not ask the processor about a late hosted payment",
      );
    }
  }
  for (const owed of await findPendingCancels(deps.db, true)) {
    try {
      const attempt = await findHostedAttempt(deps.db, undefined, owed.checkoutReference);
      const link = attempt && (await loadAttemptLink(deps, attempt.linkReference));
      if (!link) continue;
      await cancelHostedApproval(
        deps,
        await deps.processors.hostedFor(link.terms.terminalIdentifier),
        owed.checkoutReference,
        owed.payfacReference,
      );
    } catch (error) {
      deps.log.warn({ checkoutReference: owed.checkoutReference, error: errorName(error) }, "could not look up an owed cancel");
    }
  }
}

/** The link or session an attempt belongs to. */
export async function loadAttemptLink(deps: Pick<ServiceDeps, "db">, linkReference: string): Promise<CheckoutLink | undefined> {
  return (
    (await loadCheckoutLink(deps.db, linkReference, { kind: "link" })) ??
    (await loadCheckoutLink(deps.db, linkReference, { kind: "session" }))
  );
}

async function cancelHostedApproval(
  deps: Pick<ServiceDeps, "db" | "log">,
  processor: HostedPaymentProcessor,
  checkoutReference: string,
  payfacReference: string,
): Promise<void> {
  try {
    // Keyed by the attempt: a retry (or another instance's) gives back the same approval once.
    await pTimeout(processor.cancelApproval(payfacReference, `${checkoutReference}-void`), { milliseconds: CALL_TIMEOUT_MS });
    await markCancelConfirmed(deps.db, checkoutReference);
  } catch (error) {
    deps.log.error(
      { checkoutReference, payfacReference, error: errorName(error) },
      "could not give back an approval the link had no sale for; the sweep tries again",
    );
  }
}

/** A tokenize link, or a pay link with a model, saves the card. */
function savesCard(link: CheckoutLink): boolean {
  return link.terms.type === "TokenizeByLink" || link.terms.recurringProcessingModel !== null;
}

/** The link's items as the processor's page shows them. */
function pageItems(link: CheckoutLink): Array<{ name: string; amount: number; quantity: number; unitPrice: number }> {
  return link.terms.items.map(({ name, amount, quantity, unitPrice }) => ({ name, amount, quantity, unitPrice }));
}

/** A session's capture terms, when it does not capture with the authorisation. */
function laterCapture(link: CheckoutLink): HostedPaymentRequest["capture"] {
  const session = link.session;
  if (!session || (!session.isManualCapture && !session.isPreAuth && session.captureHoursDelay === null)) return null;
  return { manual: session.isManualCapture, hoursDelay: session.captureHoursDelay, preAuth: session.isPreAuth };
}
