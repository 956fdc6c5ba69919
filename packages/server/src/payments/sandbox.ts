// The built-in sandbox processor: deterministic by card number, no network.

import { randomInt } from "node:crypto";
import { newUpperAlnum } from "../ids.ts";
import { cardBrand } from "./cards.ts";
import type { AuthorizeRequest, AuthorizeResult, CardUsage, PaymentProcessor } from "./processor.ts";

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

export class SandboxProcessor implements PaymentProcessor {
  readonly name = "sandbox";
  readonly cancelled = new Set<string>();
  /** checkoutReference → payfacReference of every approval, so an attempt can be reversed by ours. */
  readonly approvals = new Map<string, string>();
  readonly reversed = new Set<string>();
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
