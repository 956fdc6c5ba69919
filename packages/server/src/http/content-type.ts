// docs/api.md#basics: a request body in any media type other than JSON is refused with 415 (3006). Checked
// on the request line and headers, before any body parser runs, so that parsers registered for
// other parts of the app (text/plain by Fastify's default, forms for the checkout page) can never
// hand a JSON route a string or a form object.
import type { FastifyRequest } from "fastify";
import { AppError } from "../domain/errors.ts";

export async function requireJsonContentType(request: FastifyRequest): Promise<void> {
  if (request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS") return;
  const { "content-type": contentType, "content-length": contentLength, "transfer-encoding": transferEncoding } = request.headers;
  const hasBody = contentType !== undefined || (contentLength !== undefined && contentLength !== "0") || transferEncoding !== undefined;
  if (!hasBody) return; // an empty body is reported by validation (1000)
  const mediaType = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType !== "application/json") {
    throw new AppError(
      "UnsupportedMediaType",
      `Content-Type must be application/json${contentType ? `, not ${JSON.stringify(contentType.slice(0, 100))}` : ""}.`,
    );
  }
}
