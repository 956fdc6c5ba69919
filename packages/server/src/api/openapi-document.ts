// The OpenAPI 3.1 document: @fastify/swagger builds the operations from the route schemas, and
// this module adds what those schemas cannot say — the guide, the error catalogue per status, the
// Idempotency-Key header, the admin API's own authentication, and worked examples.
import type { SwaggerOptions } from "@fastify/swagger";
import { type Example, type OperationExamples, operationExamples } from "./openapi-examples.ts";
import { afterSaleExamples } from "./openapi-examples-after-sale.ts";
import { sessionExamples } from "./openapi-examples-sessions.ts";
import { apiGuide, codesOfStatus, errorResponseDescription, errorStatuses } from "./openapi-guide.ts";
import { ErrorResponse } from "./schemas.ts";

interface MediaType {
  schema?: Record<string, unknown>;
  examples?: Record<string, Example>;
}
interface Response {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, MediaType>;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Record<string, unknown>;
  example?: unknown;
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, Response>;
  security?: Array<Record<string, string[]>>;
}
interface Document {
  info: { title: string; version: string; description?: string };
  servers?: Array<{ url: string }>;
  paths?: Record<string, Record<string, Operation>>;
}

const JSON_TYPE = "application/json";

const IDEMPOTENCY_KEY: Parameter = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Any text of 1–255 characters, new for each new request. The same key with the same body replays the first response; with another body: 422 3004.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
};

const REPLAYED_HEADER = {
  "Idempotent-Replayed": {
    description: "`true` when this is the stored first response to the request's Idempotency-Key.",
    schema: { type: "string", enum: ["true"] },
  },
};

/** The error body of one HTTP status: the envelope, and an errorCode among that status's codes. */
function errorResponse(status: number): Response {
  const schema = JSON.parse(JSON.stringify(ErrorResponse)) as { properties: Record<string, Record<string, unknown>> };
  const codes = codesOfStatus(status);
  const { errorCode, errorMessage, responseDateTime, responseIdentifier } = schema.properties;
  // Sample values for the statuses without a worked example, instead of Swagger UI's "string".
  Object.assign(schema.properties, {
    errorCode: { ...errorCode, enum: codes },
    errorMessage: { ...errorMessage, examples: ["(a sentence naming the field and the value at fault)"] },
    responseDateTime: { ...responseDateTime, examples: ["2026-03-14T09:26:53.589Z"] },
    responseIdentifier: { ...responseIdentifier, examples: ["0f8e8c7e-5b2a-4a53-9f25-6f5c2b1d7a10"] },
  });
  return { description: errorResponseDescription(status), content: { [JSON_TYPE]: { schema } } };
}

function decorateApiOperation(method: string, operation: Operation, examples: OperationExamples | undefined) {
  const responses = operation.responses ?? {};
  for (const status of errorStatuses()) responses[String(status)] = errorResponse(status);
  operation.responses = responses;
  if (method === "post") {
    operation.parameters = [...(operation.parameters ?? []), IDEMPOTENCY_KEY];
    const success = responses["200"];
    if (success) success.headers = { ...success.headers, ...REPLAYED_HEADER };
  }
  // An operation without examples is still documented; the tests require examples for each one.
  if (!examples) return;
  const ok = responses["200"];
  if (ok) ok.description = examples.success;
  const body = operation.requestBody?.content?.[JSON_TYPE];
  if (body && examples.requests) body.examples = examples.requests;
  for (const parameter of operation.parameters ?? []) {
    const value = examples.parameters?.[parameter.name];
    if (value !== undefined) parameter.example = value;
  }
  for (const [status, named] of Object.entries(examples.responses)) {
    const media = responses[status]?.content?.[JSON_TYPE];
    if (media) media.examples = named;
  }
}

function decorate(document: Document, publicBaseUrl: string): Document {
  document.info = { ...document.info, description: apiGuide() };
  document.servers = [{ url: publicBaseUrl }];
  const examples = { ...operationExamples(publicBaseUrl), ...afterSaleExamples(), ...sessionExamples(publicBaseUrl) };
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      if (path.startsWith("/admin/")) operation.security = [{ adminToken: [] }];
      else if (path.startsWith("/api/v1/")) decorateApiOperation(method, operation, examples[operation.operationId ?? ""]);
    }
  }
  return document;
}

/** Options of @fastify/swagger; the base URL is read when the document is first built. */
export function openApiOptions(publicBaseUrl: () => string): SwaggerOptions {
  return {
    openapi: {
      openapi: "3.1.0",
      info: { title: "Paylink API", version: "1.0.0" },
      tags: [
        { name: "Payment links", description: "Create, read, change, list and disable payment links. Authenticated by `X-API-key`." },
        {
          name: "Saved cards and refunds",
          description: "Charge saved cards, refund and reverse payments, disable saved cards, read payments. Authenticated by `X-API-key`.",
        },
        {
          name: "Hosted checkout",
          description:
            "A payment page per order, as the e-commerce plugins use it: create a session, read its status. Authenticated by `X-API-key`.",
        },
        { name: "Admin", description: "Operator only: merchants, terminals, API keys, portal users, themes. `Authorization: Bearer`." },
        { name: "Admin: webhooks", description: "Operator only: webhook endpoints and their deliveries. `Authorization: Bearer`." },
        { name: "Admin: e-mail", description: "Operator only: the e-mail Paylink sent or keeps for a merchant. `Authorization: Bearer`." },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: "apiKey", in: "header", name: "X-API-key", description: "A merchant's API key, `plk_…`." },
          adminToken: { type: "http", scheme: "bearer", description: "The operator's admin token." },
        },
      },
      security: [{ apiKey: [] }],
    },
    // The generated object is mutated in place: it is built once, for this transform, then cached.
    transformObject: (generated) => decorate((generated as { openapiObject: Document }).openapiObject, publicBaseUrl()),
  };
}
