// Who may read GET /metrics (docs/operations.md#metrics). The metrics name routes and counts
// traffic and the webhook queue: not secret, but nothing a shopper or a competitor should read.
//   PAYLINK_METRICS_TOKEN set: `Authorization: Bearer <token>` (constant-time compare), else 401.
//   unset: only a client on this machine (loopback socket) whose request no proxy forwarded; anyone
//   else gets the 404 of any unknown path. A reverse proxy on the same host connects from loopback
//   too, which is why a forwarded request (X-Forwarded-For, Forwarded, X-Real-IP) is refused: the
//   socket address is read, never request.ip, which PAYLINK_TRUST_PROXY lets a client write.
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { AppError } from "../domain/errors.ts";

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

export function metricsAccess(token: string | undefined): (request: FastifyRequest) => Promise<void> {
  if (token) {
    const expected = digest(token);
    return async (request) => {
      const match = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? "");
      if (!match || !timingSafeEqual(digest(match[1]!.trim()), expected)) {
        throw new AppError("Unauthenticated", "Send PAYLINK_METRICS_TOKEN as Authorization: Bearer <token>.", {
          "www-authenticate": 'Bearer realm="metrics"',
        });
      }
    };
  }
  return async (request) => {
    const forwarded = ["x-forwarded-for", "forwarded", "x-real-ip"].some((name) => request.headers[name] !== undefined);
    if (forwarded || !isLoopback(request.socket.remoteAddress)) {
      throw new AppError("NotFound", "There is nothing at /metrics.");
    }
  };
}

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === "::1" || /^(::ffff:)?127\./.test(address);
}
