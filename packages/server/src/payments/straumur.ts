// The live gateway (Straumur) as a processor: its hosted checkout for the page, its status call
// and its HMAC-signed webhooks for the outcome (docs/processors.md#the-live-gateway). Paylink's own
// API is wire-compatible with it, so the adapter speaks through Paylink's SDK client: the same
// request shapes the official plugins send, and the same signature scheme Paylink signs with.
import { type ChargeTokenResponse, PaylinkApiError, PaylinkClient, verifyPaymentWebhook } from "paylink-sdk";
import type {
  HostedNotification,
  HostedOutcome,
  HostedPaymentProcessor,
  HostedPaymentRequest,
  HostedPaymentStart,
  ReportedCard,
} from "./hosted.ts";
import type {
  AfterSaleProcessor,
  CardUsage,
  ModificationRequest,
  ModificationResult,
  TokenChargeRequest,
  TokenChargeResult,
} from "./processor.ts";
import { tokenChargeReversalReference } from "./processor.ts";
import { STRAUMUR_BASE_URLS, type StraumurConfig } from "./processor-config.ts";

/** How long one call to the gateway may take. */
const CALL_TIMEOUT_MS = 20_000;

export class StraumurProcessor implements HostedPaymentProcessor, AfterSaleProcessor {
  readonly type = "straumur";
  readonly notificationAnswer = { contentType: "application/json; charset=utf-8", body: '{"accepted":true}' };
  readonly #client: PaylinkClient;

  constructor(
    private readonly config: StraumurConfig,
    fetchImplementation?: typeof globalThis.fetch,
  ) {
    this.#client = new PaylinkClient({
      baseUrl: config.baseUrl ?? STRAUMUR_BASE_URLS[config.environment],
      apiKey: config.apiKey,
      timeoutMs: CALL_TIMEOUT_MS,
      ...(fetchImplementation ? { fetch: fetchImplementation } : {}),
    });
  }

  async startHostedPayment(request: HostedPaymentRequest): Promise<HostedPaymentStart> {
    const { config } = this;
    const created = await this.#client.createSession(
      {
        // The gateway's amounts are Paylink's: the same minor units (ISK in hundredths).
        amount: request.kind === "tokenization" ? 0 : request.amount,
        currency: request.currency,
        returnUrl: request.returnUrl,
        abandonUrl: request.cancelUrl,
        // The gateway's order reference is Paylink's attempt: its webhooks name it as merchantReference.
        reference: request.checkoutReference,
        terminalIdentifier: config.terminalIdentifier,
        expiresAt: request.expiresAt.toISOString(),
        culture: request.culture,
        themeKey: config.themeKey,
        items: request.kind === "tokenization" || request.items.length === 0 ? null : request.items,
        recurringProcessingModel: request.saveCard ? (request.recurringProcessingModel ?? "CardOnFile") : null,
        isManualCapture: request.capture?.manual ?? null,
        captureHoursDelay: request.capture?.manual ? null : (request.capture?.hoursDelay ?? null),
        isPreAuth: request.capture?.preAuth ?? null,
      },
      // A retry of the same attempt creates no second page.
      { idempotencyKey: request.checkoutReference },
    );
    return { redirectUrl: created.url, processorReference: created.checkoutReference };
  }

  async readOutcome(attempt: { checkoutReference: string; processorReference: string }): Promise<HostedOutcome> {
    const status = await this.#client.getSessionStatus(attempt.processorReference);
    if (status.status === "Expired") return { kind: "expired" };
    if (status.status === "New" || status.payfacReference === null) return { kind: "open" };
    // Completed: the status call names the payment but not its card or token; the webhook does.
    return { kind: "approved", payfacReference: status.payfacReference, authCode: "", token: null, card: NO_CARD };
  }

  parseNotification(_headers: Record<string, string | string[] | undefined>, rawBody: string): HostedNotification[] | null {
    const verified = verifyPaymentWebhook(rawBody, this.config.hmacKey);
    if (!verified.valid) return null;
    const { message } = verified;
    const data = message.additionalData ?? {};
    const eventType = data.eventType ?? "";
    // The result of a refund, reversal (both Refund), capture or adjustment Paylink asked for.
    if (eventType === "Refund" || eventType === "Capture" || eventType === "Adjustment") {
      return [
        {
          modification: {
            processorReference: message.payfacReference,
            // The `reference` Paylink sent with the request (#modify): known even before the answer is.
            paylinkReference: text(data.modificationReference),
            originalPayfacReference: text(data.originalPayfacReference),
            succeeded: message.success === "true",
            reason: message.success === "true" ? "" : message.reason || "Refused",
          },
        },
      ];
    }
    // The gateway's order reference is Paylink's attempt (startHostedPayment).
    const checkoutReference = message.merchantReference;
    if (!checkoutReference) return [];
    const card: ReportedCard = {
      brand: text(data.paymentMethod),
      usage: data.cardUsage === "Debit" || data.cardUsage === "Credit" ? (data.cardUsage satisfies CardUsage) : null,
      masked: text(data.cardNumber),
      last4: text(data.cardSummary),
      expiry: text(data.cardExpiryDate),
    };
    if (message.success !== "true") {
      if (eventType !== "Authorization") return [];
      return [
        {
          checkoutReference,
          outcome: { kind: "declined", payfacReference: message.payfacReference, reason: message.reason || "Refused", card },
        },
      ];
    }
    const approved = (token: string | null): HostedOutcome => ({
      kind: "approved",
      payfacReference: message.payfacReference,
      authCode: text(data.authCode) ?? (message.reason ?? "").split(":")[0] ?? "",
      token,
      card,
    });
    if (eventType === "Authorization") return [{ checkoutReference, outcome: approved(null) }];
    if (eventType === "Tokenization") return [{ checkoutReference, outcome: approved(text(data.token)) }];
    return [];
  }

  async cancelApproval(payfacReference: string, cancelReference: string): Promise<void> {
    // Reverse cancels an authorisation or refunds a capture; idempotent by its key.
    await this.#client.reverse({ payfacReference, reference: cancelReference }, { idempotencyKey: cancelReference });
  }

  // ── After the sale: the gateway's own token payments and modifications ──

  async chargeToken(request: TokenChargeRequest): Promise<TokenChargeResult> {
    const answer = await this.#client.chargeToken(
      {
        terminalIdentifier: this.config.terminalIdentifier,
        amount: request.amount,
        currency: request.currency,
        // The gateway's reference is Paylink's payment: its webhooks name the payment by it.
        reference: request.checkoutReference,
        tokenDetails: { tokenValue: request.token, recurringProcessingModel: request.recurringProcessingModel },
        // Where the gateway sends the shopper after 3-D Secure, if it wants them.
        returnUrl: request.returnUrl,
      },
      { idempotencyKey: request.checkoutReference },
    );
    return tokenChargeResult(answer);
  }

  async reverseCharge(checkoutReference: string, charge?: Omit<TokenChargeRequest, "signal">): Promise<void> {
    // The gateway finds a payment by its payfacReference only. The same request under the same
    // Idempotency-Key answers what the lost one did (or, if the gateway never saw it, charges now),
    // and that payment is then reversed: either way nothing stays charged.
    if (!charge) throw new Error(`the gateway cannot find the charge ${checkoutReference} without its request`);
    const result = await this.chargeToken({ ...charge, checkoutReference }).catch((error: unknown) => {
      // The gateway refuses the request itself (an unknown or disabled token, say): nothing was charged.
      if (isRefusal(error)) return undefined;
      throw error;
    });
    if (result === undefined) return;
    // Declined: nothing charged. Waiting for the shopper: nothing charged yet, and an approval
    // notified later for a charge Paylink gave up on is reversed then (services/notified-token-charge.ts).
    if (result.approved !== true) return;
    await this.cancelApproval(result.payfacReference, tokenChargeReversalReference(checkoutReference));
  }

  refund(request: ModificationRequest): Promise<ModificationResult> {
    return this.#modify(request, (client, key) =>
      client.refund(
        { payfacReference: request.originalPayfacReference, amount: request.amount, currency: request.currency, reference: key },
        { idempotencyKey: key },
      ),
    );
  }

  cancelOrRefund(request: ModificationRequest): Promise<ModificationResult> {
    // The gateway's reverse cancels an authorisation or refunds what is not yet refunded.
    return this.#modify(request, (client, key) =>
      client.reverse({ payfacReference: request.originalPayfacReference, reference: key }, { idempotencyKey: key }),
    );
  }

  capture(request: ModificationRequest): Promise<ModificationResult> {
    return this.#modify(request, (client, key) =>
      client.capture(
        { payfacReference: request.originalPayfacReference, amount: request.amount, currency: request.currency, reference: key },
        { idempotencyKey: key },
      ),
    );
  }

  adjustAuthorisation(request: ModificationRequest): Promise<ModificationResult> {
    return this.#modify(request, (client, key) =>
      client.adjust(
        { payfacReference: request.originalPayfacReference, amount: request.amount, currency: request.currency, reference: key },
        { idempotencyKey: key },
      ),
    );
  }

  /**
   * The gateway answers "Received" with its own reference of the modification; its Refund,
   * Capture or Adjustment webhook brings the result. A refusal it states at once (an error the
   * request itself caused) is final; anything else (network, 5xx, 429, a retry still running)
   * is an unknown outcome, asked again later under the same key.
   */
  async #modify(
    request: ModificationRequest,
    send: (client: PaylinkClient, key: string) => Promise<{ payfacReference: string }>,
  ): Promise<ModificationResult> {
    try {
      const answer = await send(this.#client, request.modificationReference);
      return { accepted: "received", processorReference: answer.payfacReference };
    } catch (error) {
      if (isRefusal(error)) return { accepted: false, reason: error.errorMessage ?? `Refused by the gateway (${error.status})` };
      throw error;
    }
  }
}

function tokenChargeResult(answer: ChargeTokenResponse): TokenChargeResult {
  if (answer.resultCode === "RedirectShopper" && answer.redirect?.url) return { approved: "shopper", redirectUrl: answer.redirect.url };
  const data = answer.additionalData;
  const facts = {
    cardBrand: data.paymentMethod,
    cardUsage: data.cardUsage === "Debit" ? ("Debit" as const) : ("Credit" as const),
    paymentMethod: data.paymentMethod,
    threeDAuthenticated: false,
  };
  if (answer.resultCode === "Authorised") {
    return { approved: true, payfacReference: answer.payfacReference, authCode: data.authCode ?? "", token: null, ...facts };
  }
  if (answer.resultCode === "Refused") {
    return { approved: false, payfacReference: answer.payfacReference, reason: answer.refusalReason ?? "Refused", ...facts };
  }
  // Not an outcome this version can take (the gateway wants the shopper): unknown, so it is reversed.
  throw new Error(`the gateway answered a token charge with resultCode ${JSON.stringify(answer.resultCode)}`);
}

/**
 * An answer that refuses the request for good: a 4xx other than "slow down", "still running" and
 * the credentials refused (the operator may fix those; the request is asked again later).
 */
function isRefusal(error: unknown): error is PaylinkApiError {
  return (
    error instanceof PaylinkApiError &&
    error.status >= 400 &&
    error.status < 500 &&
    ![401, 403, 408, 429].includes(error.status) &&
    !(error.status === 409 && error.errorCode === "3007")
  );
}

const NO_CARD: ReportedCard = { brand: null, usage: null, masked: null, last4: null, expiry: null };

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}
