// docs/api.md#basics: a request body in any media type other than JSON is refused with 415 (3006). Checked
// on the request line and headers, before any body parser runs, so that parsers registered for
// other parts of the app (text/plain by Fastify's default, forms for the checkout page) can never
// hand a JSON route a string or a form object. A callback hook: the check is synchronous, and an
// async hook would cost every API and admin request a promise and a microtask turn (docs/decisions.md#speed-is-guarded).
import { isUtf8 } from "node:buffer";
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { AppError } from "../domain/errors.ts";

export function requireJsonContentType(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  done(unsupportedMediaType(request));
}

function unsupportedMediaType(request: FastifyRequest): AppError | undefined {
  if (request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS") return undefined;
  const { "content-type": contentType, "content-length": contentLength, "transfer-encoding": transferEncoding } = request.headers;
  const hasBody = contentType !== undefined || (contentLength !== undefined && contentLength !== "0") || transferEncoding !== undefined;
  if (!hasBody) return undefined; // an empty body is reported by validation (1000)
  const mediaType = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType === "application/json") return undefined;
  return new AppError(
    "UnsupportedMediaType",
    `Content-Type must be application/json${contentType ? `, not ${JSON.stringify(contentType.slice(0, 100))}` : ""}.`,
  );
}

/**
 * JSON bodies are read as bytes and refused (400, InvalidJson) unless they are valid
 * UTF-8: decoded as text first, a broken sequence would silently become U+FFFD and be stored.
 * Parsing itself is Fastify's own (prototype-poisoning checks included).
 */
export function useStrictJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) return done(new AppError("InvalidJson", "The request body is not valid UTF-8."), undefined);
    parseJson(request, bytes.toString("utf8"), done);
  });
}
