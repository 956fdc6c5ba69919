// GET /api/v1/paymentlinks (docs/api.md#list): newest first, 0-based pages, filters.
import { listLinkSummaries } from "../db/links-repository.ts";
import { AppError } from "../domain/errors.ts";
import { parseIsoDateTime } from "../domain/links/terms.ts";
import { envelope } from "../http/envelope.ts";
import type { TypedApp } from "../http/typed-app.ts";
import type { ApiDeps } from "./deps.ts";
import { presentLinkSummary } from "./present-link.ts";
import { ERROR_RESPONSES, ListLinksQuery, ListLinksResponse } from "./schemas.ts";

export function registerListLinks(app: TypedApp, deps: ApiDeps) {
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
      const { query } = request;
      const page = query.page ?? 0;
      const pageSize = query.pageSize ?? 20;
      const createdFrom = query.createdFrom === undefined ? undefined : parseIsoDateTime("createdFrom", query.createdFrom);
      const createdTo = query.createdTo === undefined ? undefined : parseIsoDateTime("createdTo", query.createdTo);
      if (createdFrom && createdTo && createdFrom > createdTo) {
        throw new AppError("ConflictingFields", "createdFrom must not be after createdTo.");
      }
      const now = deps.now();
      const { links, totalCount } = await listLinkSummaries(
        deps.db,
        request.merchantId,
        {
          status: query.status,
          type: query.type,
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
