// GET /api/v1/paymentlinks (SPEC §2.5): newest first, 0-based pages, filters.
import type { FastifyInstance } from "fastify";
import { listLinks } from "../db/links-repository.ts";
import { AppError } from "../domain/errors.ts";
import { parseIsoDateTime } from "../domain/links/terms.ts";
import type { LinkStatus, LinkType } from "../domain/links/types.ts";
import { envelope } from "../http/envelope.ts";
import type { ApiDeps } from "./deps.ts";
import { presentLinkSummary } from "./present-link.ts";
import { ERROR_RESPONSES, ListLinksQuery, type ListLinksQueryType, ListLinksResponse } from "./schemas.ts";

export function registerListLinks(app: FastifyInstance, deps: ApiDeps) {
  app.get(
    "/paymentlinks",
    {
      schema: {
        operationId: "listPaymentLinks",
        summary: "List payment links, newest first",
        tags: ["Payment links"],
        querystring: ListLinksQuery,
        response: { 200: ListLinksResponse, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const query = request.query as ListLinksQueryType;
      const page = query.page ?? 0;
      const pageSize = query.pageSize ?? 20;
      const createdFrom = query.createdFrom === undefined ? undefined : parseIsoDateTime("createdFrom", query.createdFrom);
      const createdTo = query.createdTo === undefined ? undefined : parseIsoDateTime("createdTo", query.createdTo);
      if (createdFrom && createdTo && createdFrom > createdTo) {
        throw new AppError("ConflictingFields", "createdFrom must not be after createdTo.");
      }
      const now = deps.now();
      const { links, totalCount } = await listLinks(
        deps.db,
        request.merchantId,
        {
          status: query.status as LinkStatus | undefined,
          type: query.type as LinkType | undefined,
          createdFrom,
          createdTo,
          search: query.search?.trim() || undefined,
        },
        { offset: page * pageSize, limit: pageSize },
        now,
      );
      return { data: links.map((link) => presentLinkSummary(link, deps.publicBaseUrl, now)), totalCount, ...envelope(request) };
    },
  );
}
