// GET /api/v1/paymentlinks/{reference} (docs/api.md#read)
import { Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import pLimit from "p-limit";
import type { PaymentLinkRecord } from "../db/links-repository.ts";
import { findLinkWithSubmissions, readLinkInBatches } from "../db/links-repository.ts";
import { AppError } from "../domain/errors.ts";
import { envelope } from "../http/envelope.ts";
import type { TypedApp } from "../http/typed-app.ts";
import { oneAtATimePerKey } from "../one-at-a-time-per-key.ts";
import type { ApiDeps } from "./deps.ts";
import { presentLink } from "./present-link.ts";
import { ERROR_RESPONSES, GetLinkResponse, ReferenceParams, Submission } from "./schemas.ts";

/**
 * Links read in batches at once in one process: each holds a pooled connection for its snapshot.
 * A merchant reads one such link at a time, with two more waiting at most (then 429): one merchant
 * reading its largest links over and over takes one of the two places, never the pool, and never
 * stands in front of another merchant's read.
 */
const BATCHED_READS_AT_ONCE = 2;
const BATCHED_READS_WAITING_PER_MERCHANT = 2;

/** One object, so Fastify compiles its serializer once (it keeps them by schema). */
const SUBMISSION_SCHEMA = Submission as unknown as Record<string, unknown>;

export function registerGetLink(app: TypedApp, deps: ApiDeps) {
  const batchedReadTurn = oneAtATimePerKey(pLimit(BATCHED_READS_AT_ONCE), BATCHED_READS_WAITING_PER_MERCHANT);
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
      // More submissions than one statement carries (docs/decisions.md#big-link-reads): read again in batches from one
      // snapshot, each batch written as JSON as it comes, so the process holds text rather than
      // objects and other requests run between batches instead of waiting for one long
      // serialization. The body is complete before anything is sent: a read that fails half-way
      // is an error, never a truncated 200. A client that leaves stops the read.
      const left = new AbortController();
      reply.raw.once("close", () => left.abort());
      const serializeSubmission = reply.compileSerializationSchema(SUBMISSION_SCHEMA) as (payload: object) => string;
      const batches: Buffer[] = [];
      let link: PaymentLinkRecord | undefined;
      try {
        link = await batchedReadTurn(
          request.merchantId,
          () =>
            readLinkInBatches(deps.db, request.merchantId, reference, left.signal, (submissions) => {
              batches.push(Buffer.from(submissions.map((submission) => serializeSubmission(submission)).join(","), "utf8"));
            }),
          () =>
            new AppError("RateLimited", "This merchant is already reading links with many submissions. Retry after 5 seconds.", {
              "retry-after": "5",
            }),
        );
      } catch (error) {
        if (!left.signal.aborted) throw error;
        // No one to answer: not a failure of ours.
        request.log.info({ reference }, "the client left during a link read in batches; the read was stopped");
        reply.hijack();
        reply.raw.destroy();
        return reply;
      }
      if (!link) throw notFound(reference);
      const body = { paymentLink: presentLink(link, [], deps.publicBaseUrl, deps.now()), ...envelope(request) };
      return sendWithSubmissions(reply, reply.serialize(body) as string, batches);
    },
  );
}

/**
 * The route's own serialization of the response, its empty submissions replaced by the batches'
 * text, with its length, as the one-statement path's body has.
 */
function sendWithSubmissions(reply: FastifyReply, withoutSubmissions: string, batches: Buffer[]) {
  const empty = '"submissions":[]';
  // A quote inside a JSON string is escaped, so this text is the key itself, and it appears once.
  const at = withoutSubmissions.indexOf(empty);
  if (at < 0 || withoutSubmissions.indexOf(empty, at + 1) >= 0) throw new Error("the link's serialization has no single empty submissions");
  const comma = Buffer.from(",");
  const parts = [
    Buffer.from(`${withoutSubmissions.slice(0, at)}"submissions":[`, "utf8"),
    ...batches.flatMap((batch, i) => (i === 0 ? [batch] : [comma, batch])),
    Buffer.from(`]${withoutSubmissions.slice(at + empty.length)}`, "utf8"),
  ];
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  return reply
    .type("application/json; charset=utf-8")
    .header("content-length", length)
    .send(Readable.from(parts, { objectMode: false }));
}

export function notFound(reference: string): AppError {
  return new AppError("NotFound", `No payment link with paymentLinkReference ${JSON.stringify(reference)} was found.`);
}
