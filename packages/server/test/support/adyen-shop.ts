// A shop whose terminal takes its money through the local fake Adyen (test/support/adyen-fake.ts),
// set up as an operator would (test/support/processor-shop.ts), with Adyen's notifications going to
// the terminal's webhookUrl. Shared by the checkout and the after-sale tests of the Adyen adapter.
import { type FakeAdyen, startFakeAdyen } from "./adyen-fake.ts";
import type { TestBackend } from "./databases.ts";
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
