// The checkout's static files: the stylesheet, the optional form helper script and the merchants'
// theme logos.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { findThemeLogo } from "../db/merchants-repository.ts";
import { CHECKOUT_CSS, CHECKOUT_JS } from "./assets.ts";
import type { CheckoutContext } from "./deps.ts";
import { LogoParams, LogoQuery, pathRejected } from "./schemas.ts";

export function assetsRoutes(fastify: FastifyInstance, { deps }: CheckoutContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // Versioned URLs (assets.ts): a new stylesheet or script gets a new URL, so these never go stale.
  app.get("/assets/checkout.css", { schema: { hide: true } }, async (_request, reply) => {
    return reply
      .header("content-type", "text/css; charset=utf-8")
      .header("cache-control", "public, max-age=31536000, immutable")
      .send(CHECKOUT_CSS);
  });
  app.get("/assets/checkout.js", { schema: { hide: true } }, async (_request, reply) => {
    return reply
      .header("content-type", "text/javascript; charset=utf-8")
      .header("cache-control", "public, max-age=31536000, immutable")
      .send(CHECKOUT_JS);
  });

  // Theme logos: Paylink's stored copy (downloaded or uploaded when the theme was saved).
  const schema = { hide: true, params: LogoParams, querystring: LogoQuery };
  app.get("/assets/logos/:themeKey", { schema, attachValidation: true }, async (request, reply) => {
    const logo = pathRejected(request) ? undefined : await findThemeLogo(deps.db, request.params.themeKey);
    if (!logo)
      return reply.code(404).header("content-type", "text/plain; charset=utf-8").header("cache-control", "no-store").send("Not found");
    const versioned = request.query.v === logo.version;
    return (
      reply
        .header("content-type", logo.contentType)
        // A versioned URL never changes content; an unversioned one may (a new logo, same theme).
        .header("cache-control", versioned ? "public, max-age=31536000, immutable" : "public, max-age=300")
        .header("etag", `"${logo.version}"`)
        .header("content-security-policy", "default-src 'none'; frame-ancestors 'none'; sandbox")
        .send(logo.bytes)
    );
  });
}
