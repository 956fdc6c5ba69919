// Errors from the payment path are logged only through this: a processor client may quote card data.

/**
 * What of an error may be logged: its name and message with every run of digits masked, since a
 * processor client could quote the card number or CVC in a message.
 */
export function errorName(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.replace(/\d+/g, "#").slice(0, 200);
  return "unknown error";
}
