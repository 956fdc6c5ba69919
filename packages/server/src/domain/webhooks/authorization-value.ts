// The Authorization header value Paylink sends with each of a merchant's webhooks, exactly as the
// merchant gave it (e.g. "Bearer abc"). One rule for the admin API and the portal: printable ASCII
// words separated by single spaces, at most 512 characters. Node refuses to send any other header
// value, so a key outside the rule would make every delivery to the endpoint fail.
import { AppError } from "../errors.ts";

export const WEBHOOK_AUTHORIZATION_MAX_LENGTH = 512;
export const WEBHOOK_AUTHORIZATION_PATTERN = "^[\\x21-\\x7e]+( [\\x21-\\x7e]+)*$";
const allowed = new RegExp(WEBHOOK_AUTHORIZATION_PATTERN);

/** The catalogue error for a value that breaks the rule, or undefined for a good one. */
export function webhookAuthorizationError(value: string): AppError | undefined {
  if (value.length > WEBHOOK_AUTHORIZATION_MAX_LENGTH)
    return new AppError("TooLong", `the key is longer than ${WEBHOOK_AUTHORIZATION_MAX_LENGTH} characters`);
  if (!allowed.test(value))
    return new AppError("UnsupportedValue", 'the key must be printable ASCII words separated by single spaces, e.g. "Bearer abc"');
  return undefined;
}
