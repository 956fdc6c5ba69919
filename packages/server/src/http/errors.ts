// The one place that turns failures into HTTP responses for the JSON APIs. Every error body has
// the shape of docs/api.md#errors; nothing unexpected ever reaches the client beyond code 5000.
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from "../db/unavailable.ts";
import { AppError, type ErrorName } from "../domain/errors.ts";
import { envelope } from "./envelope.ts";

/** Fastify's own request-level failures, which happen before our code runs. */
const FRAMEWORK_ERRORS: Record<string, { kind: ErrorName; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { kind: "UnsupportedMediaType", message: "Content-Type must be application/json." },
  FST_ERR_CTP_BODY_TOO_LARGE: { kind: "BodyTooLarge", message: "The request body is larger than 1 MiB." },
  FST_ERR_CTP_EMPTY_JSON_BODY: { kind: "InvalidJson", message: "The request body is empty; send a JSON object." },
  FST_ERR_CTP_INVALID_JSON_BODY: { kind: "InvalidJson", message: "The request body is not valid JSON." },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { kind: "InvalidJson", message: "Content-Length does not match the body." },
};

export function toAppError(error: FastifyError | Error): AppError | undefined {
  if (error instanceof AppError) return error;
  const unavailable = databaseUnavailableError(error);
  if (unavailable) return unavailable;
  const fastifyError = error as FastifyError;
  const known = fastifyError.code ? FRAMEWORK_ERRORS[fastifyError.code] : undefined;
  if (known) return new AppError(known.kind, known.message);
  // JSON.parse failures and prototype-poisoning rejections come as plain 400s.
  if (fastifyError.statusCode === 400 && (error instanceof SyntaxError || /JSON|__proto__|constructor/i.test(error.message))) {
    return new AppError("InvalidJson", "The request body is not valid JSON.");
  }
  if (fastifyError.statusCode === 413) return new AppError("BodyTooLarge", "The request body is larger than 1 MiB.");
  if (fastifyError.statusCode === 415) return new AppError("UnsupportedMediaType", "Content-Type must be application/json.");
  if (fastifyError.statusCode !== undefined && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new AppError("InvalidJson", "The request could not be read.");
  }
  return undefined;
}

/** The 503 of an outage (db/unavailable.ts decides what counts as one), or undefined. */
export function databaseUnavailableError(error: unknown): AppError | undefined {
  if (!isDatabaseUnavailable(error)) return undefined;
  return new AppError(
    "DatabaseUnavailable",
    `Paylink cannot reach its database right now. Retry after ${DATABASE_RETRY_AFTER_SECONDS} seconds (a POST with the same Idempotency-Key is safe to retry).`,
    { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) },
  );
}

/** A 503 of either kind (database away, instance stopping), for handlers that render their own pages. */
export function unavailableError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error.status === 503 ? error : undefined;
  return databaseUnavailableError(error);
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  return reply
    .code(error.status)
    .headers(error.headers)
    .type("application/json; charset=utf-8")
    .send({ errorCode: error.code, errorMessage: error.message, ...envelope(request) });
}

/** What an error handler is answering, remembered on the reply so a second failure can still answer it. */
const ANSWERING = Symbol("answering an error");
type AnsweringReply = FastifyReply & { [ANSWERING]?: AppError };

/**
 * Called first by every error handler. When the reply is already answering an error, sending that
 * answer failed (an onSend hook that needs the database, a header Node refused): Fastify hands the
 * new error to the parent handler, and without this it would end in Fastify's own body with the
 * driver's message. Then the answer is written straight to the socket, past every hook, and true
 * is returned; the caller does nothing more.
 */
export function answeredAfterFailedAnswer(request: FastifyRequest, reply: FastifyReply, error: unknown, page?: "html"): boolean {
  const answering = reply as AnsweringReply;
  const first = answering[ANSWERING];
  if (first === undefined) {
    answering[ANSWERING] = toAppError(error as Error) ?? internalError(request);
    return false;
  }
  request.log.error({ err: error }, "failed to send an error answer; written directly");
  const raw = reply.raw;
  reply.hijack();
  if (raw.headersSent || raw.destroyed) {
    raw.destroy();
    return true;
  }
  const answer = unavailableError(error) ?? first;
  const body =
    page === "html" || request.url.startsWith("/pay/") || request.url.startsWith("/portal/")
      ? `<!doctype html><html><head><meta charset="utf-8"><title>Paylink</title></head><body><p>Please try again in a moment. / Reyndu aftur eftir augnablik.</p></body></html>`
      : JSON.stringify({ errorCode: answer.code, errorMessage: answer.message, ...envelope(request) });
  const type = body.startsWith("<") ? "text/html; charset=utf-8" : "application/json; charset=utf-8";
  raw.writeHead(answer.status, {
    ...answer.headers,
    "content-type": type,
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  raw.end(body);
  return true;
}

function internalError(request: FastifyRequest): AppError {
  return new AppError("Internal", `Something went wrong on our side. Quote ${request.id} when you contact support.`);
}

export function jsonErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (answeredAfterFailedAnswer(request, reply, error)) return reply;
  const appError = toAppError(error);
  if (appError) {
    // One line per refused request, with a message an operator can alert on (docs/operations.md).
    if (appError.kind === "DatabaseUnavailable") request.log.warn({ err: error }, "database unavailable: answered 503");
    else if (appError.status >= 500 && appError.kind !== "ShuttingDown") request.log.error({ err: error }, "request failed");
    return sendError(request, reply, appError);
  }
  request.log.error({ err: error }, "unexpected error");
  return sendError(request, reply, internalError(request));
}

export function jsonNotFound(request: FastifyRequest, reply: FastifyReply) {
  return sendError(request, reply, new AppError("NotFound", `There is no ${request.method} ${request.url.split("?")[0]} endpoint.`));
}
