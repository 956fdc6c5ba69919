// The two modification endpoints, refund and reverse (docs/api.md#refund, #reverse), are one kind
// of route: an after-sale service run under the request's Idempotency-Key, answered "Received"
// with presentModification's fields and the envelope; the result follows as a Refund webhook.
import type { Static, TObject } from "typebox";
import type { KeyedEffect } from "../db/idempotency-repository.ts";
import { envelope } from "../http/envelope.ts";
import { keyedAnswer } from "../http/idempotency.ts";
import type { TypedApp } from "../http/typed-app.ts";
import type { AfterSaleDeps } from "../payments/after-sale-deps.ts";
import type { ModificationReceipt } from "../payments/refund.ts";
import { ModificationResponse } from "./after-sale-schemas.ts";
import type { ApiDeps } from "./deps.ts";
import { presentModification } from "./present-payment.ts";
import { ERROR_RESPONSES } from "./schemas.ts";

export interface ModificationRoute<Body extends TObject> {
  path: string;
  operationId: string;
  summary: string;
  body: Body;
  modify(
    deps: AfterSaleDeps,
    merchantId: string,
    input: Static<Body>,
    keyed?: KeyedEffect<ModificationReceipt>,
  ): Promise<ModificationReceipt>;
}

export function registerModification<Body extends TObject>(app: TypedApp, deps: ApiDeps, route: ModificationRoute<Body>) {
  app.post(
    route.path,
    {
      schema: {
        operationId: route.operationId,
        summary: route.summary,
        tags: ["Saved cards and refunds"],
        body: route.body,
        response: { 200: ModificationResponse, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const answer = keyedAnswer(request, reply, (receipt: ModificationReceipt) => ({
        ...presentModification(receipt),
        ...envelope(request),
      }));
      const operationDeps = { db: deps.db, processor: deps.processor, log: request.log };
      return answer.body(await route.modify(operationDeps, request.merchantId, request.body as Static<Body>, answer.effect));
    },
  );
}
