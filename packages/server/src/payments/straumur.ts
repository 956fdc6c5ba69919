// The live gateway (Straumur) as a processor: its hosted checkout for the page, its status call
// and its HMAC-signed webhooks for the outcome (docs/processors.md#the-live-gateway). Paylink's own
// API is wire-compatible with it, so the adapter speaks through Paylink's SDK client: the same
// request shapes the official plugins send, and the same signature scheme Paylink signs with.
import { PaylinkClient, verifyPaymentWebhook } from "paylink-sdk";
import type {
  HostedNotification,
  HostedOutcome,
  HostedPaymentProcessor,
  HostedPaymentRequest,
  HostedPaymentStart,
  ReportedCard,
} from "./hosted.ts";
import type { CardUsage } from "./processor.ts";
import { STRAUMUR_BASE_URLS, type StraumurConfig } from "./processor-config.ts";

/** How long one call to the gateway may take. */
const CALL_TIMEOUT_MS = 20_000;

export class StraumurProcessor implements HostedPaymentProcessor {
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
    const eventType = data.eventType ?? "";
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
    // Captures, refunds and other events about later modifications are not about the attempt.
    return [];
  }

  async cancelApproval(payfacReference: string, cancelReference: string): Promise<void> {
    // Reverse cancels an authorisation or refunds a capture; idempotent by its key.
    await this.#client.reverse({ payfacReference, reference: cancelReference }, { idempotencyKey: cancelReference });
  }
}

const NO_CARD: ReportedCard = { brand: null, usage: null, masked: null, last4: null, expiry: null };

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}
