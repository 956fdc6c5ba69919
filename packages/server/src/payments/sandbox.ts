// The built-in sandbox processor: deterministic by card number, no network.

import { randomInt } from "node:crypto";
import { newUpperAlnum } from "../ids.ts";
import { cardBrand } from "./cards.ts";
import type {
  AfterSaleProcessor,
  AuthorizeRequest,
  AuthorizeResult,
  CardUsage,
  ModificationRequest,
  ModificationResult,
  PaymentProcessor,
  TokenChargeRequest,
} from "./processor.ts";

/** The sandbox's test cards (the README lists them); any other Luhn-valid number is approved. */
export const SANDBOX_CARDS = {
  "4111111111111111": { approved: true, brand: "VI", usage: "Debit" },
  "5555555555554444": { approved: true, brand: "MC", usage: "Credit" },
  "4000000000000002": { approved: false, reason: "Refused" },
  "4000000000000069": { approved: false, reason: "Expired Card" },
  "4000000000000127": { approved: false, reason: "CVC Declined" },
} as const;

export interface SandboxOptions {
  /** Simulated processor latency, for tests of payments in flight. */
  latencyMs?: number;
}

/**
 * The card approved when saved and on a link payment whose later token payments are all refused,
 * so merchants can test their failed-renewal path. Known by its masked number, which Paylink keeps
 * and passes with every charge (the sandbox itself keeps nothing across restarts).
 */
export const SANDBOX_NO_BALANCE_CARD = { number: "4000000000000341", masked: "400000******0341", reason: "Not enough balance" } as const;

export class SandboxProcessor implements PaymentProcessor, AfterSaleProcessor {
  readonly name = "sandbox";
  readonly cancelled = new Set<string>();
  /** checkoutReference → payfacReference of every approval, so an attempt can be reversed by ours. */
  readonly approvals = new Map<string, string>();
  readonly reversed = new Set<string>();
  /** checkoutReference → payfacReference of every approved token charge. */
  readonly tokenCharges = new Map<string, string>();
  /** modificationReference → amount of every refund, reversal, capture and adjustment accepted. */
  readonly modifications = new Map<string, string>();
  constructor(private readonly options: SandboxOptions = {}) {}

  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    if (this.options.latencyMs) await delay(this.options.latencyMs, request.signal);
    const known = SANDBOX_CARDS[request.card.number as keyof typeof SANDBOX_CARDS];
    const { brand, paymentMethod } = cardBrand(request.card.number);
    const cardUsage: CardUsage = known && "usage" in known ? known.usage : brand === "VI" ? "Debit" : "Credit";
    const facts = { cardBrand: known && "brand" in known ? known.brand : brand, cardUsage, paymentMethod, threeDAuthenticated: false };
    const payfacReference = newUpperAlnum(16);
    if (known && !known.approved) return { approved: false, payfacReference, reason: known.reason, ...facts };
    // The contract: a reversed checkoutReference is never authorised afterwards. Checked after the
    // latency, so a call already under way when the reversal came (and given no abort signal,
    // or one it ignored) is declined too, instead of becoming a charge nobody will record.
    if (this.reversed.has(request.checkoutReference)) return { approved: false, payfacReference, reason: "Reversed", ...facts };
    remember(this.approvals, request.checkoutReference, payfacReference);
    return {
      approved: true,
      payfacReference,
      authCode: String(randomInt(0, 1_000_000)).padStart(6, "0"),
      token: request.saveCard ? newUpperAlnum(16) : null,
      ...facts,
    };
  }

  async cancel(payfacReference: string): Promise<void> {
    remember(this.cancelled, payfacReference);
  }

  async reverseAttempt(checkoutReference: string): Promise<void> {
    const approval = this.approvals.get(checkoutReference);
    if (approval) remember(this.cancelled, approval);
    remember(this.reversed, checkoutReference);
  }

  // ── After the sale (docs/api.md#saved-cards-and-refunds) ──

  async chargeToken(request: TokenChargeRequest): Promise<AuthorizeResult> {
    if (this.options.latencyMs) await delay(this.options.latencyMs, request.signal);
    const cardUsage: CardUsage = request.card.usage === "Credit" ? "Credit" : "Debit";
    const facts = { cardBrand: request.card.brand, cardUsage, paymentMethod: request.card.brand, threeDAuthenticated: false };
    const payfacReference = newUpperAlnum(16);
    if (request.card.masked === SANDBOX_NO_BALANCE_CARD.masked) {
      return { approved: false, payfacReference, reason: SANDBOX_NO_BALANCE_CARD.reason, ...facts };
    }
    if (expiredBefore(request.card.expiry, new Date())) return { approved: false, payfacReference, reason: "Expired Card", ...facts };
    // A repeated call for one charge answers with the same approval, as an idempotent acquirer does.
    const earlier = this.tokenCharges.get(request.checkoutReference);
    remember(this.tokenCharges, request.checkoutReference, earlier ?? payfacReference);
    return {
      approved: true,
      payfacReference: earlier ?? payfacReference,
      authCode: String(randomInt(0, 1_000_000)).padStart(6, "0"),
      token: null,
      ...facts,
    };
  }

  async reverseCharge(checkoutReference: string): Promise<void> {
    const approval = this.tokenCharges.get(checkoutReference);
    if (approval) remember(this.cancelled, approval);
    remember(this.reversed, checkoutReference);
  }

  /** Refunds and reversals succeed at once. */
  async refund(request: ModificationRequest): Promise<ModificationResult> {
    if (this.options.latencyMs) await delay(this.options.latencyMs, request.signal);
    remember(this.modifications, request.modificationReference, String(request.amount));
    return { accepted: true };
  }

  async cancelOrRefund(request: ModificationRequest): Promise<ModificationResult> {
    return this.refund(request);
  }

  /** Captures and adjustments succeed at once; Paylink keeps the balance (what is left, what lapsed). */
  async capture(request: ModificationRequest): Promise<ModificationResult> {
    return this.refund(request);
  }

  async adjustAuthorisation(request: ModificationRequest): Promise<ModificationResult> {
    return this.refund(request);
  }
}

/** A saved card's `MM/YYYY` expiry lies before `now`'s month. */
function expiredBefore(expiry: string, now: Date): boolean {
  const match = /^(\d{2})\/(\d{4})$/.exec(expiry);
  if (!match) return false;
  const month = Number(match[1]);
  const year = Number(match[2]);
  return year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1);
}

/** The sandbox's memory of recent transactions, bounded so a long-running demo does not grow. */
const MEMORY = 10_000;

function remember<K>(store: Map<K, string> | Set<K>, key: K, value?: string): void {
  if (store instanceof Map) store.set(key, value!);
  else store.add(key);
  if (store.size > MEMORY) store.delete(store.keys().next().value as K);
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
