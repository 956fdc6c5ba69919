// The prose of the API reference: what an integrator reads before the operations. The error
// table is printed from ERRORS, so the reference cannot drift from what the server sends.
import { ERRORS, type ErrorName } from "../domain/errors.ts";

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** One row per error: code, HTTP status, name, when it happens. */
export function errorCatalogueTable(): string {
  const rows = (Object.entries(ERRORS) as Array<[ErrorName, (typeof ERRORS)[ErrorName]]>).map(
    ([name, error]) => `| \`${error.code}\` | ${error.status} | ${name} | ${cell(error.when)} |`,
  );
  return ["| Code | HTTP | Name | When |", "| --- | --- | --- | --- |", ...rows].join("\n");
}

/** The codes a response with this HTTP status can carry, in catalogue order. */
export function codesOfStatus(status: number): string[] {
  return Object.values(ERRORS)
    .filter((error) => error.status === status)
    .map((error) => error.code);
}

/** Every HTTP status an error of the catalogue can have, ascending. */
export function errorStatuses(): number[] {
  return [...new Set(Object.values(ERRORS).map((error) => error.status))].sort((a, b) => a - b);
}

/** A response description: the codes of this status with their titles. */
export function errorResponseDescription(status: number): string {
  const lines = Object.values(ERRORS)
    .filter((error) => error.status === status)
    .map((error) => `- \`${error.code}\` ${error.title}`);
  return [`Error (HTTP ${status}). \`errorCode\` is one of:`, "", ...lines].join("\n");
}

export function apiGuide(): string {
  return `Payment links and a hosted checkout. The payment-link API under \`/api/v1\` is compatible with
Straumur's payment-links API: an integration written for it works against Paylink with another base
URL and a Paylink API key, error handling included. This page is generated from the server's own
route schemas; the machine-readable document is [/api/v1/openapi.json](/api/v1/openapi.json)
(OpenAPI 3.1).

## Authentication

Send your API key in the \`X-API-key\` header (the name is case-insensitive) on every \`/api/v1\`
request: \`X-API-key: plk_…\`. A key is shown once when it is issued and stored only as a hash; the
operator can revoke it. A missing, unknown or revoked key gives 401 with \`errorCode\` \`3001\`. A
payment link of another merchant is reported exactly like one that does not exist (404, \`2014\`).

## Requests and responses

Bodies are JSON (\`Content-Type: application/json\`, at most 1 MiB). Amounts are integers in minor
units: \`12900.00 ISK\` is \`1290000\`, and an ISK amount must end in \`00\`. Every success is HTTP 200.

As in Straumur's service, JSON property names (at every depth) and query parameter names are matched
in any letter case (\`TerminalIdentifier\`, \`?PageSize=5\`); two names that differ only in case are
\`2013\`. Unknown body fields are \`1006\`; unknown query parameters are ignored. Responses are camelCase.

Every response, success or error, carries the envelope:

- \`responseDateTime\`: the time of the response, ISO 8601 in UTC (\`2026-03-14T09:26:53.589Z\`);
- \`responseIdentifier\`: a UUID naming this response. Quote it to the operator: it is in the server's log
  lines of that request.

An error adds \`errorCode\` (a string: \`"000"\` keeps its leading zeros) and \`errorMessage\`, a sentence
naming the field and the value at fault. Bad input is never a 500.

## Idempotency-Key

Every \`POST\` accepts an optional \`Idempotency-Key\` header (1–255 characters). Keys belong to your
merchant and are kept at least 24 hours:

- the same key with the same body replays the first response (its status and body) with the header
  \`Idempotent-Replayed: true\`, and nothing is done twice;
- the same key with a different body is refused: 422, \`3004\`;
- while the first request with a key is still running, a second one gets 409, \`3007\`: retry shortly;
- a request that failed with a 5xx is not kept, so retrying it with the same key runs it again.

## Rate limits

The operator sets how many requests a minute a client may send; over the limit, and after repeated
wrong keys from one address, the answer is 429, \`3002\`, with a \`Retry-After\` header in seconds.

## Error codes

${errorCatalogueTable()}

## Admin API

Operations tagged *Admin* exist only when the operator has configured an admin token; they take
\`Authorization: Bearer <token>\` instead of an API key and are not part of the merchant API.`;
}
