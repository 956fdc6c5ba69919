// A shop whose terminal takes its money through Stripe (the local fake, test/support/stripe-fake.ts),
// on processor-shop.ts's common start-up: shared by the checkout and the after-sale tests of the
// Stripe adapter.
import assert from "node:assert/strict";
import type { TestBackend } from "./databases.ts";
import type { TestServer } from "./harness.ts";
import type { PayOnProcessorPage } from "./processor-after-sale.ts";
import { type ProcessorShop, startShopWithProcessor } from "./processor-shop.ts";
import { getPage } from "./shopper.ts";
import { type FakeStripe, STRIPE_TEST_CARDS, startFakeStripe } from "./stripe-fake.ts";

export interface ShopOnStripe extends ProcessorShop {
  stripe: FakeStripe;
}

export async function startShopOnStripe(backend: TestBackend): Promise<ShopOnStripe> {
  const stripe = await startFakeStripe();
  const shop = await startShopWithProcessor(backend, {
    configure(webhookUrl) {
      // The address the operator registers in Stripe's dashboard.
      stripe.webhookUrl = webhookUrl;
      return { type: "stripe", secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, baseUrl: stripe.baseUrl };
    },
    close: () => stripe.close(),
  });
  return { ...shop, stripe };
}

/** The shopper types a card on Stripe's Checkout page (the fake's). */
export function payOnStripe(location: string, card: string): Promise<Response> {
  return fetch(location, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ cardNumber: card, cardExpiry: "12/30", cardCvc: "123" }).toString(),
  });
}

/**
 * The shopper pays with `card` on Stripe's page and goes back to the shop, which shows the outcome
 * at once: Paylink asks Stripe when the shopper returns.
 */
export function payOnStripePage(shop: Pick<TestServer, "baseUrl">, card: string = STRIPE_TEST_CARDS.approved): PayOnProcessorPage {
  return async (location, expected) => {
    const paid = await payOnStripe(location, card);
    assert.equal(paid.status, 303);
    const back = await getPage(shop.baseUrl, new URL(paid.headers.get("location")!).pathname);
    assert.equal(back.status, expected, back.html);
  };
}
