// Requests Node's HTTP parser rejects before Fastify sees them (control characters or raw high
// bytes in the request line, oversized headers, a client too slow to send its request). They get
// the documented error envelope too, not Fastify's own body: code 1000, "could not be read".
import { randomUUID } from "node:crypto";
import type { Socket } from "node:net";
import { ERRORS } from "../domain/errors.ts";

const REASONS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: "The request headers are too large.",
  ERR_HTTP_REQUEST_TIMEOUT: "The request was not received in time.",
};

export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  if (socket.writable) {
    const body = JSON.stringify({
      errorCode: ERRORS.InvalidJson.code,
      errorMessage: (error.code && REASONS[error.code]) ?? "The request could not be read: it is not valid HTTP.",
      responseDateTime: new Date().toISOString(),
      responseIdentifier: randomUUID(),
    });
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
