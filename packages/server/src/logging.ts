// The one logger factory of every Paylink process (`serve`, `worker`): JSON lines (pino) with the
// same redaction everywhere, so a secret or a card number never reaches a log line, whichever
// process or component logs it.
import pino, { type DestinationStream, type Logger } from "pino";

/** Log redaction: secrets and card data never reach a log line, whatever logs them. */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  "req.headers.authorization",
  "req.headers.cookie",
  "cardNumber",
  "cardCvc",
  "*.cardNumber",
  "*.cardCvc",
  "*.*.cardNumber",
  "*.*.cardCvc",
  "*.apiKey",
  "*.hmacKey",
  "*.password",
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } };
  return destination ? pino(options, destination) : pino(options);
}
