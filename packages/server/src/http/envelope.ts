import type { FastifyRequest } from "fastify";

/**
 * The fields every /api/v1 response carries (docs/api.md#basics). The responseIdentifier is the
 * request's id, which is also in every log line of that request, so support can find the logs
 * of any response a merchant quotes.
 */
export function envelope(request: FastifyRequest): { responseDateTime: string; responseIdentifier: string } {
  return { responseDateTime: new Date().toISOString(), responseIdentifier: request.id };
}
