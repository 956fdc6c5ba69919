// Admin API authentication: `Authorization: Bearer <PAYLINK_ADMIN_TOKEN>`, compared in constant time.
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { AppError } from "../domain/errors.ts";

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

export function adminTokenAuth(adminToken: string) {
  const expected = digest(adminToken);
  return async function authenticateAdmin(request: FastifyRequest) {
    const header = request.headers.authorization ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]!.trim()), expected)) {
      throw new AppError("Unauthenticated", "Send the operator's admin token as Authorization: Bearer <token>.");
    }
  };
}
