// Every payment's payfacReference is held once, across link sales and saved-card charges.
// The two live in two tables, so neither table's own index can say "one payment per reference";
// this table's primary key does, written in the transaction that records the processor's answer.
import type { Kysely } from "kysely";
import type { DB } from "./schema.ts";

/**
 * Registers the reference of the payment being recorded. Throws PostgreSQL's unique violation
 * (23505) when another payment already holds it, which rolls the recording back: the answer stays
 * unrecorded, the attempt unknown, and it is reversed like any attempt whose outcome Paylink never
 * learnt (never a second payment under one reference).
 */
export async function registerPayfacReference(
  trx: Kysely<DB>,
  payfacReference: string,
  source: "link" | "token",
  checkoutReference: string,
): Promise<void> {
  await trx
    .insertInto("payfac_references")
    .values({ payfac_reference: payfacReference, source, checkout_reference: checkoutReference })
    .execute();
}
