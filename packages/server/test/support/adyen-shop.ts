// A shop whose terminal takes its money through the local fake Adyen (test/support/adyen-fake.ts),
// set up as an operator would (test/support/processor-shop.ts), with Adyen's notifications going to
// the terminal's webhookUrl. Shared by the checkout and the after-sale tests of the Adyen adapter.
import assert from "node:assert/strict";
import { ADYEN_TEST_CARDS, type FakeAdyen, startFakeAdyen } from "./adyen-fake.ts";
import type { TestBackend } from "./databases.ts";
import type { TestServer } from "./harness.ts";
import { type PayOnProcessorPage, waitForReceipt } from "./processor-after-sale.ts";
import { type ProcessorShop, startShopWithProcessor } from "./processor-shop.ts";

export interface ShopOnAdyen extends ProcessorShop {
  adyen: FakeAdyen;
}

export async function startShopOnAdyen(backend: TestBackend): Promise<ShopOnAdyen> {
  const adyen = await startFakeAdyen();
  const shop = await startShopWithProcessor(backend, {
    configure(webhookUrl) {
      // The address the operator registers as the Standard webhook in Adyen's Customer Area.
      adyen.webhookUrl = webhookUrl;
      return {
        type: "adyen",
        environment: "test",
        apiKey: adyen.apiKey,
        merchantAccount: adyen.merchantAccount,
        hmacKey: adyen.hmacKey,
        baseUrl: adyen.baseUrl,
      };
    },
    close: () => adyen.close(),
  });
  return { ...shop, adyen };
}

/** The shopper pays on Adyen's page from the 303 Paylink's form answered, and goes back to the shop. */
export function payOnAdyenPage(shop: Pick<TestServer, "baseUrl">): PayOnProcessorPage {
  return async (location, expected) => {
    const paid = await fetch(location, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ cardNumber: ADYEN_TEST_CARDS.approved, expiryDate: "03/30", securityCode: "737" }).toString(),
    });
    assert.equal(paid.status, 303);
    const back = new URL(paid.headers.get("location")!);
    // The receipt (a session's 303 to the shop) waits for the AUTHORISATION notification when a card is saved.
    await waitForReceipt(shop, back.pathname + back.search, expected);
  };
}
