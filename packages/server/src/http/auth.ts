// API-key authentication for /api/v1 (docs/api.md): header X-API-key, keys stored as SHA-256.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Database } from "../db/connect.ts";
import { findMerchantIdByApiKey } from "../db/merchants-repository.ts";
import { AppError } from "../domain/errors.ts";
import type { FailureBrake } from "./rate-limit.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the API-key check on every authenticated route. */
    merchantId: string;
  }
}

export function apiKeyAuth(db: Database, failures?: FailureBrake) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply) {
    // An address that keeps sending wrong keys is stopped before any lookup.
    const wait = failures ? await failures.blockedFor(request) : 0;
    if (wait > 0) {
      throw new AppError(
        "RateLimited",
        `Too many requests with a missing or wrong API key from this address. Retry after ${wait} seconds.`,
        {
          "retry-after": String(wait),
        },
      );
    }
    const header = request.headers["x-api-key"];
    const apiKey = Array.isArray(header) ? header[0] : header;
    if (!apiKey) {
      await failures?.recordFailure(request);
      throw new AppError("Unauthenticated", "Send your API key in the X-API-key header.");
    }
    // Cheap shape check first: a malformed key never costs a database round trip.
    const merchantId = /^plk_[0-9A-Za-z]{32}$/.test(apiKey) ? await findMerchantIdByApiKey(db, apiKey) : undefined;
    if (!merchantId) {
      await failures?.recordFailure(request);
      throw new AppError("Unauthenticated", "The API key is unknown or has been revoked.");
    }
    request.merchantId = merchantId;
  };
}
