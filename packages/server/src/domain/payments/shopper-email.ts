// Where a payment's shopper e-mail comes from: a session's shopperContact, else the e-mail the
// shopper typed into the link's EmailAddress field. Receipts, the CSV and the customer pages agree
// on it by asking here.

/** The shopper's e-mail of a payment, or null when neither the session nor the form gave one. */
export function shopperEmailOf(answers: ReadonlyArray<{ field: string; value: string }>, shopperContact: string | null): string | null {
  return shopperContact ?? answers.find((answer) => answer.field === "EmailAddress")?.value ?? null;
}
