// "Who" of an /api/v1 or /admin/v1 request for the audit log: what authenticated it, and the
// client's address as Fastify reads it (request.ip: behind a trusted proxy, the proxy's forwarded
// address; docs/operations.md).
import type { FastifyRequest } from "fastify";
import { type Actor, apiKeyActor, operatorActor } from "../domain/audit/actor.ts";

export function apiActor(request: FastifyRequest): Actor {
  return apiKeyActor(request.apiKey, request.ip);
}

/** The admin API's caller: the operator, whoever holds the admin token. */
export function adminActor(request: FastifyRequest): Actor {
  return operatorActor(request.ip);
}
