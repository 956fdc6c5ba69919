// Declines on a real processor's page (docs/processors.md#how-a-payment-goes): each is kept once,
// so the merchant's webhook about it goes out once however often the processor reports it.
import type { Transaction } from "kysely";
import type { Database } from "./connect.ts";
import type { DB } from "./schema.ts";

/**
 * Keeps one decline a processor reported on its page, and runs `alsoInTransaction` (the merchant's
 * webhook rows) only the first time it is reported. False when it was known already.
 */
export async function recordHostedDecline(
  db: Database,
  decline: { payfacReference: string; checkoutReference: string },
  alsoInTransaction: (trx: Transaction<DB>) => Promise<void>,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto("hosted_declines")
      .values({ payfac_reference: decline.payfacReference, checkout_reference: decline.checkoutReference })
      .onConflict((conflict) => conflict.column("payfac_reference").doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
    await alsoInTransaction(trx);
    return true;
  });
}
