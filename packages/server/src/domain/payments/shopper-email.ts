// Where a payment's shopper e-mail comes from: a session's shopperContact, else the e-mail the
// shopper typed into the link's EmailAddress field. Receipts, refund notices, the CSV and the
// payments search agree on it by asking here.

/** The shopper's e-mail of a payment, or null when neither the session nor the form gave one. */
export function shopperEmailOf(answers: ReadonlyArray<{ field: string; value: string }>, shopperContact: string | null): string | null {
  if (shopperContact) return shopperContact;
  const answered = answers.find((answer) => answer.field === "EmailAddress")?.value.trim();
  return answered ? answered : null;
}
