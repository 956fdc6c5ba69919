// GET /api/v1/paymentlinks/{reference} (docs/api.md#read)
import { Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import { atMostAtOnce } from "../at-most-at-once.ts";
import { findLinkWithSubmissions, readLinkInBatches } from "../db/link-with-submissions-repository.ts";
import { AppError } from "../domain/errors.ts";
import { envelope } from "../http/envelope.ts";
import type { TypedApp } from "../http/typed-app.ts";
import type { ApiDeps } from "./deps.ts";
import { presentLink } from "./present-link.ts";
import { ERROR_RESPONSES, GetLinkResponse, ReferenceParams, Submission } from "./schemas.ts";

/**
 * Links read in batches at once in one process: each holds a pooled connection for its snapshot,
 * so a merchant reading its largest links many times over takes two connections, never the pool.
 */
const BATCHED_READS_AT_ONCE = 2;

/** One object, so Fastify compiles its serializer once (it keeps them by schema). */
const SUBMISSION_SCHEMA = Submission as unknown as Record<string, unknown>;

export function registerGetLink(app: TypedApp, deps: ApiDeps) {
  const batchedReads = atMostAtOnce(BATCHED_READS_AT_ONCE);
  app.get(
    "/paymentlinks/:reference",
    {
      schema: {
        operationId: "getPaymentLink",
        summary: "Read a payment link with its counters and submissions",
        tags: ["Payment links"],
        params: ReferenceParams,
        response: { 200: GetLinkResponse, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { reference } = request.params;
      // References are at most 64 characters; a longer one is not looked up.
      const found = reference.length <= 64 ? await findLinkWithSubmissions(deps.db, request.merchantId, reference) : undefined;
      if (!found) throw notFound(reference);
      if (found.submissions) {
        return { paymentLink: presentLink(found.link, found.submissions, deps.publicBaseUrl, deps.now()), ...envelope(request) };
      }
      // More submissions than one statement carries (D-269): read again in batches from one
      // snapshot, each batch written as JSON as it comes, so the process holds text rather than
      // objects and other requests run between batches instead of waiting for one long
      // serialization. The body is complete before anything is sent: a read that fails half-way
      // is a 500, never a truncated 200.
      const serializeSubmission = reply.compileSerializationSchema(SUBMISSION_SCHEMA) as (payload: object) => string;
      const batches: string[] = [];
      const link = await batchedReads(() =>
        readLinkInBatches(deps.db, request.merchantId, reference, (submissions) => {
          batches.push(submissions.map((submission) => serializeSubmission(submission)).join(","));
        }),
      );
      if (!link) throw notFound(reference);
      const body = { paymentLink: presentLink(link, [], deps.publicBaseUrl, deps.now()), ...envelope(request) };
      return sendWithSubmissions(reply, reply.serialize(body) as string, batches);
    },
  );
}

/** The route's own serialization of the response, its empty submissions replaced by the batches' text. */
function sendWithSubmissions(reply: FastifyReply, withoutSubmissions: string, batches: string[]) {
  const empty = '"submissions":[]';
  // A quote inside a JSON string is escaped, so this text is the key itself, and it appears once.
  const at = withoutSubmissions.indexOf(empty);
  if (at < 0 || withoutSubmissions.indexOf(empty, at + 1) >= 0) throw new Error("the link's serialization has no single empty submissions");
  const parts = [
    withoutSubmissions.slice(0, at),
    '"submissions":[',
    ...joinedWithCommas(batches),
    "]",
    withoutSubmissions.slice(at + empty.length),
  ];
  return reply.type("application/json; charset=utf-8").send(Readable.from(parts, { objectMode: false }));
}

function* joinedWithCommas(batches: string[]): Generator<string> {
  for (let i = 0; i < batches.length; i++) yield i === 0 ? batches[i]! : `,${batches[i]}`;
}

export function notFound(reference: string): AppError {
  return new AppError("NotFound", `No payment link with paymentLinkReference ${JSON.stringify(reference)} was found.`);
}
