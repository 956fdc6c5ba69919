/** @jsxRuntime automatic @jsxImportSource preact */
// GET/POST /portal/links/new and /portal/links/{reference}/edit (docs/portal.md#links): the link
// form, read into the API's request body and judged by the API's own schema and rules through the
// same service; the first broken rule is shown beside the field it names.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { checkedCreateRequest, checkedUpdateRequest } from "../api/link-requests.ts";
import { findLink } from "../db/links-repository.ts";
import { listTerminals, listThemes } from "../db/merchant-reads-repository.ts";
import { AppError } from "../domain/errors.ts";
import { createLink } from "../services/create-link.ts";
import { updateLink } from "../services/update-link.ts";
import type { PortalContext } from "./deps.ts";
import { errorText } from "./error-text.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { formFieldOf, formValuesOf, type LinkFormValues, linkRequestOf, readLinkForm } from "./link-form.ts";
import { frameOf, sendPortalNotFound, sendPortalPage } from "./render.tsx";
import { portalActor } from "./request-state.ts";
import { ReferenceParams } from "./schemas.ts";
import { Layout } from "./views/layout.tsx";
import { LinkForm } from "./views/link-form.tsx";

type Mode = { kind: "create" } | { kind: "edit"; reference: string };

export function linkSaveRoutes(fastify: FastifyInstance, { deps }: PortalContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  async function sendForm(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    mode: Mode,
    values: LinkFormValues,
    problems: Map<string, string>,
  ) {
    const session = request.portal.session!;
    const m = PORTAL_MESSAGES[request.portal.lang].form;
    const [terminals, themes] = await Promise.all([listTerminals(deps.db, session.merchantId), listThemes(deps.db, session.merchantId)]);
    const title = mode.kind === "create" ? m.createTitle : m.editTitle(mode.reference);
    const action = mode.kind === "create" ? "/portal/links/new" : `/portal/links/${mode.reference}/edit`;
    return sendPortalPage(reply, status, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={title} section="links">
        <h1>{title}</h1>
        <LinkForm
          lang={request.portal.lang}
          mode={mode.kind}
          action={action}
          csrf={session.csrfToken}
          values={{ ...values, terminalIdentifier: values.terminalIdentifier || (terminals[0]?.terminalIdentifier ?? "") }}
          problems={problems}
          terminals={terminals}
          themes={themes}
        />
      </Layout>
    ));
  }

  /** Runs `save` on the form's API body; on a broken rule, the form again with the problem beside its field. */
  async function submit(
    request: FastifyRequest,
    reply: FastifyReply,
    mode: Mode,
    save: (body: Record<string, unknown>) => Promise<string>,
  ) {
    const m = PORTAL_MESSAGES[request.portal.lang].form;
    const values = readLinkForm(isFields(request.body) ? request.body : {});
    const { body, problems } = linkRequestOf(values, request.portal.lang);
    const shown = new Map<string, string>();
    for (const [key, problem] of problems) shown.set(key, typeof problem === "string" ? (m.problems[problem] ?? problem) : problem.message);
    if (shown.size === 0) {
      try {
        return reply.redirect(await save(body), 303);
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        const field = shopperKey(formFieldOf(error.field), body);
        shown.set(field, errorText(error, field, request.portal.lang));
      }
    }
    return sendForm(request, reply, 400, mode, values, shown);
  }

  const manage = { config: { portalAction: "links.manage" as const } };
  app.get("/links/new", manage, async (request, reply) => {
    const values = readLinkForm({ currency: "ISK", culture: request.portal.lang });
    return sendForm(request, reply, 200, { kind: "create" }, values, new Map());
  });

  app.post("/links/new", manage, async (request, reply) =>
    submit(request, reply, { kind: "create" }, async (body) => {
      const reference = await createLink(
        { ...deps, log: request.log },
        request.portal.session!.merchantId,
        portalActor(request),
        checkedCreateRequest(body),
      );
      request.log.info({ paymentLinkReference: reference }, "payment link created in the portal");
      return `/portal/links/${reference}`;
    }),
  );

  const options = { schema: { params: ReferenceParams }, attachValidation: true, ...manage };
  app.get("/links/:reference/edit", options, async (request, reply) => {
    const link = request.validationError
      ? undefined
      : await findLink(deps.db, request.portal.session!.merchantId, request.params.reference);
    if (!link) return sendPortalNotFound(request, reply);
    return sendForm(request, reply, 200, { kind: "edit", reference: link.reference }, formValuesOf(link), new Map());
  });

  app.post("/links/:reference/edit", options, async (request, reply) => {
    const merchantId = request.portal.session!.merchantId;
    const link = request.validationError ? undefined : await findLink(deps.db, merchantId, request.params.reference);
    if (!link) return sendPortalNotFound(request, reply);
    const mode: Mode = { kind: "edit", reference: link.reference };
    return submit(request, reply, mode, async (body) => {
      // Type and terminal are not on the edit form: they never change (the API's rule).
      const update = {
        ...body,
        type: link.terms.type,
        terminalIdentifier: link.terms.terminalIdentifier,
        paymentLinkReference: link.reference,
      };
      if (!(await updateLink({ ...deps, log: request.log }, merchantId, portalActor(request), checkedUpdateRequest(update))))
        throw new AppError("NotFound", "gone");
      return `/portal/links/${link.reference}?saved=1`;
    });
  });
}

/** An error naming shopperInfo[N] belongs beside that shopper field's row. */
function shopperKey(key: string, body: Record<string, unknown>): string {
  const match = /^shopper-(\d+)$/.exec(key);
  if (!match) return key;
  const entries = Array.isArray(body.shopperInfo) ? body.shopperInfo : [];
  const entry: unknown = entries[Number(match[1])];
  return entry && typeof entry === "object" && "field" in entry ? `shopper-${String(entry.field)}` : "form";
}

/** @fastify/formbody parses into a plain object of strings and string arrays. */
export function isFields(body: unknown): body is Record<string, unknown> {
  return body !== null && typeof body === "object";
}
