// GET /pay/{reference}/qr.svg: the link's URL as a QR code, for merchants to print or show.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import QRCode from "qrcode";
import { loadCheckoutLink } from "../db/checkout-repository.ts";
import { linkUrl } from "../domain/links/url.ts";
import type { CheckoutContext } from "./deps.ts";
import { sendCheckoutNotFound } from "./page-response.tsx";
import { LinkParams, pathRejected } from "./schemas.ts";

export function qrRoute(fastify: FastifyInstance, { deps }: CheckoutContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get("/:reference/qr.svg", { schema: { hide: true, params: LinkParams }, attachValidation: true }, async (request, reply) => {
    const { reference } = request.params;
    const link = pathRejected(request) ? undefined : await loadCheckoutLink(deps.db, reference, { kind: "link" });
    if (!link) return sendCheckoutNotFound(request, reply);
    const svg = await QRCode.toString(linkUrl(deps.publicBaseUrl, reference), { type: "svg", errorCorrectionLevel: "M", margin: 2 });
    return (
      reply
        .header("content-type", "image/svg+xml; charset=utf-8")
        .header("cache-control", "public, max-age=86400")
        .header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
        // Merchants may show the QR code on their own pages.
        .header("cross-origin-resource-policy", "cross-origin")
        .send(svg)
    );
  });
}
