/** @jsxRuntime automatic @jsxImportSource preact */
// /portal/themes (docs/portal.md#themes): the merchant's checkout themes; create and edit (name,
// colour or none, logo) beside a live preview. Logos are taken in like the admin API's (take-logo.ts).

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { takeLogo } from "../admin/take-logo.ts";
import { listThemes } from "../db/merchant-reads-repository.ts";
import { createTheme, findTheme, type Theme, updateTheme } from "../db/merchants-repository.ts";
import { changedFields } from "../domain/audit/entry.ts";
import { AppError } from "../domain/errors.ts";
import { may } from "../domain/portal/roles.ts";
import { changeAndRecord } from "../services/audit.ts";
import { normaliseHexColour } from "../web/theme.ts";
import type { PortalContext } from "./deps.ts";
import { errorText } from "./error-text.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { frameOf, sendPortalNotFound, sendPortalPage } from "./render.tsx";
import { formField, portalActor } from "./request-state.ts";
import { IdParams } from "./schemas.ts";
import { Layout } from "./views/layout.tsx";
import { ThemeForm, type ThemeFormValues } from "./views/theme-form.tsx";

export function themesRoutes(fastify: FastifyInstance, { deps }: PortalContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const manage = { config: { portalAction: "themes.manage" as const } };
  const byKey = { schema: { params: IdParams }, attachValidation: true };

  async function sendThemes(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    form: { values: ThemeFormValues; problems: Map<string, string>; theme?: Theme },
  ) {
    const session = request.portal.session!;
    const m = PORTAL_MESSAGES[request.portal.lang].themes;
    const themes = await listThemes(deps.db, session.merchantId);
    const title = form.theme ? form.theme.name : m.title;
    const saved = formField(request.query, "saved") === "1";
    return sendPortalPage(reply, status, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={title} section="themes">
        <h1>{title}</h1>
        {saved ? (
          <div class="alert ok" role="status">
            {m.saved}
          </div>
        ) : null}
        {form.theme ? null : (
          <section class="card">
            <p class="muted">{m.intro}</p>
            {themes.length === 0 ? <p>{m.none}</p> : null}
            <ul data-themes>
              {themes.map((t) => (
                <li key={t.themeKey}>
                  <a href={`/portal/themes/${t.themeKey}`}>{t.name}</a> <span class="mono muted">{t.themeKey}</span>
                </li>
              ))}
            </ul>
            {may(session.role, "themes.manage") ? <h2>{m.newTheme}</h2> : null}
          </section>
        )}
        {may(session.role, "themes.manage") ? (
          <ThemeForm
            lang={request.portal.lang}
            nonce={nonce}
            csrf={session.csrfToken}
            action={form.theme ? `/portal/themes/${form.theme.themeKey}` : "/portal/themes"}
            values={form.values}
            theme={form.theme}
            problems={form.problems}
            merchantName={session.merchantName}
          />
        ) : null}
      </Layout>
    ));
  }

  /** The posted form, checked; logo undefined = keep the stored one, null = remove it. */
  async function readForm(request: FastifyRequest) {
    const values = { name: formField(request.body, "name").trim(), primaryColor: formField(request.body, "primaryColor").trim() };
    const problems = new Map<string, string>();
    const m = PORTAL_MESSAGES[request.portal.lang].themes;
    if (values.name === "" || values.name.length > 100) problems.set("name", m.problems.name);
    // Without a colour of its own, the theme takes the checkout's default (the box's meaning).
    const noColour = formField(request.body, "defaultColour") === "1";
    if (noColour) values.primaryColor = "";
    const primaryColor = noColour ? null : normaliseHexColour(values.primaryColor);
    if (!noColour && !primaryColor) problems.set("primaryColor", m.problems.primaryColor);
    let logo: { image: NonNullable<Awaited<ReturnType<typeof takeLogo>>["logo"]>; sourceUrl: string | null } | null | undefined;
    const logoUrl = formField(request.body, "logoUrl").trim();
    try {
      const taken = await takeLogo(logoUrl, deps.allowPrivateTargets);
      if (taken.logo) logo = { image: taken.logo, sourceUrl: taken.sourceUrl };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      problems.set("logoUrl", errorText(error, "logoUrl", request.portal.lang));
    }
    if (logo === undefined && formField(request.body, "removeLogo") === "1") logo = null;
    return { values, problems, changes: { name: values.name, primaryColor, logo } };
  }

  app.get("/themes", async (request, reply) =>
    sendThemes(request, reply, 200, { values: { name: "", primaryColor: "#1f4e8c" }, problems: new Map() }),
  );

  app.post("/themes", manage, async (request, reply) => {
    const { values, problems, changes } = await readForm(request);
    if (problems.size > 0) return sendThemes(request, reply, 400, { values, problems });
    const { merchantId } = request.portal.session!;
    const actor = portalActor(request);
    const theme = await changeAndRecord(
      deps.db,
      (trx) =>
        createTheme(trx, merchantId, {
          name: changes.name,
          primaryColor: changes.primaryColor,
          logoUrl: changes.logo?.sourceUrl ?? null,
          logo: changes.logo?.image ?? null,
        }),
      (created) => ({
        merchantId,
        actor,
        action: "theme.create",
        object: { type: "theme", id: created.themeKey },
        details: { name: changes.name },
      }),
    );
    return reply.redirect(`/portal/themes/${theme.themeKey}?saved=1`, 303);
  });

  app.get("/themes/:id", byKey, async (request, reply) => {
    const theme = request.validationError ? undefined : await findTheme(deps.db, request.portal.session!.merchantId, request.params.id);
    if (!theme) return sendPortalNotFound(request, reply);
    return sendThemes(request, reply, 200, {
      values: { name: theme.name, primaryColor: theme.primaryColor ?? "" },
      problems: new Map(),
      theme,
    });
  });

  app.post("/themes/:id", { ...byKey, ...manage }, async (request, reply) => {
    const merchantId = request.portal.session!.merchantId;
    const theme = request.validationError ? undefined : await findTheme(deps.db, merchantId, request.params.id);
    if (!theme) return sendPortalNotFound(request, reply);
    const { values, problems, changes } = await readForm(request);
    if (problems.size > 0) return sendThemes(request, reply, 400, { values, problems, theme });
    const actor = portalActor(request);
    const themeChanges = {
      name: changes.name,
      primaryColor: changes.primaryColor,
      ...(changes.logo !== undefined ? { logo: changes.logo } : {}),
    };
    await changeAndRecord(
      deps.db,
      (trx) => updateTheme(trx, merchantId, theme.themeKey, themeChanges),
      (found) =>
        found && {
          merchantId,
          actor,
          action: "theme.update",
          object: { type: "theme", id: theme.themeKey },
          details: { fields: changedFields(themeChanges) },
        },
    );
    return reply.redirect(`/portal/themes/${theme.themeKey}?saved=1`, 303);
  });
}
