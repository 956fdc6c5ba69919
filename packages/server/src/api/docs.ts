// The API reference: the OpenAPI 3.1 document at /api/v1/openapi.json, and at /docs Swagger UI
// rendering it. Swagger UI's files come from the @fastify/swagger-ui package and are served by
// this server, so the page loads nothing from anywhere else; its CSP says so.
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";

/**
 * Only this origin's scripts, styles, images and fetches. Swagger UI draws its icons as data:
 * images; "Try it out" calls the API on this origin. No inline script or style is allowed.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Room between the columns of the guide's tables (the error catalogue), which Swagger UI packs tight. */
const DOCS_CSS = `
.swagger-ui .info .renderedMarkdown table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
.swagger-ui .info .renderedMarkdown th, .swagger-ui .info .renderedMarkdown td { padding: 0.3em 1.25em 0.3em 0; vertical-align: top; text-align: left; }
.swagger-ui .info .renderedMarkdown tbody tr { border-top: 1px solid #e3e3e3; }
.swagger-ui .info .renderedMarkdown td:first-child, .swagger-ui .info .renderedMarkdown td:nth-child(2) { white-space: nowrap; }
`;

export async function registerDocs(app: FastifyInstance) {
  app.get("/api/v1/openapi.json", { schema: { hide: true } }, async () => app.swagger());

  await app.register(swaggerUi, {
    routePrefix: "/docs",
    staticCSP: DOCS_CSP,
    // Swagger UI's top bar is a box to load some other document; this page shows Paylink's only.
    uiConfig: {
      layout: "BaseLayout",
      deepLinking: true,
      docExpansion: "list",
      defaultModelsExpandDepth: -1,
      defaultModelRendering: "example",
      displayOperationId: true,
      displayRequestDuration: true,
    },
    theme: { title: "Paylink API reference", css: [{ filename: "paylink.css", content: DOCS_CSS }] },
  });
}
