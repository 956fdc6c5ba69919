/** @jsxRuntime automatic @jsxImportSource preact */
// /portal/developers (docs/portal.md#developers): API keys (create — shown once —, revoke after a
// question), terminals with their processor (set by the operator through the admin API, or by an
// owner through portal/terminal-processor.tsx), and the webhook endpoints with a form to add one. The same repositories as
// the admin API. Every POST answers with a redirect; a new key or endpoint secret reaches the page
// it leads to through portal/shown-once.ts, never a URL.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ComponentChildren } from "preact";
import { listApiKeys, listTerminals } from "../db/merchant-reads-repository.ts";
import { createApiKey, forgetCachedApiKeys, revokeApiKey } from "../db/merchants-repository.ts";
import { terminalProcessorViews } from "../db/terminal-processors-repository.ts";
import { listWebhookEndpoints } from "../db/webhook-endpoints-repository.ts";
import { endpointHealth } from "../db/webhook-health-repository.ts";
import { AppError } from "../domain/errors.ts";
import { may } from "../domain/portal/roles.ts";
import { webhookAuthorizationError } from "../domain/webhooks/authorization-value.ts";
import { checkWebhookUrl } from "../net/outbound-guard.ts";
import { type ProcessorView, processorWebhookUrl } from "../payments/processor-config.ts";
import { changeAndRecord } from "../services/audit.ts";
import { addEndpoint } from "../services/webhook-endpoints.ts";
import { formatDateTime, type Lang } from "../web/i18n.ts";
import type { PortalContext } from "./deps.ts";
import { errorText } from "./error-text.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { frameOf, sendPortalNotFound, sendPortalPage } from "./render.tsx";
import { formField, portalActor } from "./request-state.ts";
import { IdParams } from "./schemas.ts";
import { showOnce, takeShownOnce } from "./shown-once.ts";
import { sendConfirmPage } from "./views/confirm.tsx";
import { CopyValue } from "./views/copy-value.tsx";
import { EndpointConditionPill, EndpointHealthLines } from "./views/endpoint-health.tsx";
import { Csrf, Layout } from "./views/layout.tsx";
import { TableHead, TableWrap } from "./views/table.tsx";
import { WebhookForm } from "./views/webhook-form.tsx";

export function developersRoutes(fastify: FastifyInstance, { deps }: PortalContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  async function sendDevelopers(request: FastifyRequest, reply: FastifyReply, status: number, flash?: ComponentChildren) {
    const session = request.portal.session!;
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang];
    const [keys, terminals, processors, endpoints, health] = await Promise.all([
      listApiKeys(deps.db, session.merchantId),
      listTerminals(deps.db, session.merchantId),
      terminalProcessorViews(deps.db, deps.keyring, session.merchantId),
      listWebhookEndpoints(deps.db, deps.keyring, session.merchantId),
      endpointHealth(deps.db, session.merchantId),
    ]);
    const done = formField(request.query, "done");
    const canManage = may(session.role, "developers.manage");
    const canSetProcessors = may(session.role, "processors.manage");
    const shown = status === 200 ? takeShownOnce(deps, request, reply) : undefined;
    const newKey = shown?.kind === "api-key" ? shown.apiKey : undefined;
    const notices: Record<string, string> = {
      revoked: m.dev.keyRevoked,
      "endpoint-deleted": m.dev.endpointDeleted,
      "key-created": m.dev.keyCreated,
      "processor-changed": m.terminalProcessor.changed,
    };
    const notice = done === "key-created" && newKey ? null : (notices[done] ?? null);
    return sendPortalPage(reply, status, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={m.dev.title} section="developers">
        <h1>{m.dev.title}</h1>
        {flash}
        {newKey ? (
          <div class="alert ok" role="status" data-new-key>
            <h2>{m.dev.newKeyTitle}</h2>
            <p>{m.dev.newKeyText}</p>
            <CopyValue value={newKey} lang={lang} secret />
          </div>
        ) : null}
        {notice ? (
          <div class="alert ok" role="status">
            {notice}
          </div>
        ) : null}
        <section class="card" aria-labelledby="keys-title">
          <h2 id="keys-title">{m.dev.apiKeys}</h2>
          <p class="muted">{m.dev.apiKeysIntro}</p>
          <TableWrap label={m.dev.apiKeysTable}>
            <table data-api-keys class="cards">
              <TableHead columns={[m.dev.keyName, m.dev.prefix, m.dev.created, m.dev.lastUsed, m.dev.state, { hidden: m.dev.revoke }]} />
              <tbody>
                {keys.map((key) => (
                  <tr key={key.keyId} data-key-id={key.keyId}>
                    <td data-label={m.dev.keyName}>
                      <span>{key.name || m.none}</span>
                    </td>
                    <td class="mono" data-label={m.dev.prefix}>
                      <span>{`${key.prefix}…`}</span>
                    </td>
                    <td data-label={m.dev.created}>
                      <span>{formatDateTime(key.createdAt, lang)}</span>
                    </td>
                    <td data-label={m.dev.lastUsed}>
                      <span>{key.lastUsedAt ? formatDateTime(key.lastUsedAt, lang) : m.dev.never}</span>
                    </td>
                    <td data-label={m.dev.state}>
                      {key.revokedAt ? <span class="pill bad">{m.dev.revoked}</span> : <span class="pill ok">{m.dev.active}</span>}
                    </td>
                    <td class="row-actions">
                      {key.revokedAt || !canManage ? null : (
                        <a
                          href={`/portal/developers/api-keys/${key.keyId}/revoke`}
                          class="button danger"
                          aria-label={`${m.dev.revoke}: ${key.name || key.prefix}`}
                        >
                          {m.dev.revoke}
                        </a>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          {canManage ? (
            <form method="post" action="/portal/developers/api-keys" class="row">
              <Csrf token={session.csrfToken} />
              <div class="field">
                <label for="key-name">{m.dev.keyName}</label>
                <input id="key-name" name="name" maxlength={100} />
              </div>
              <div class="field">
                <button type="submit">{m.dev.createKey}</button>
              </div>
            </form>
          ) : null}
        </section>
        <section class="card" aria-labelledby="terminals-title">
          <h2 id="terminals-title">{m.dev.terminals}</h2>
          <p class="muted">{canSetProcessors ? m.terminalProcessor.ownerNote : m.dev.processorNote}</p>
          {terminals.map((t) => (
            <div key={t.terminalIdentifier} class="field" data-terminal={t.terminalIdentifier}>
              <span class="label">{t.name}</span>
              <CopyValue value={t.terminalIdentifier} lang={lang} />
              <span class="hint">{`${m.dev.currencies}: ${t.currencies ? t.currencies.join(", ") : m.dev.anyCurrency}`}</span>
              <TerminalProcessor
                processor={processors.get(t.terminalIdentifier) ?? { type: "sandbox" }}
                webhookUrl={processorWebhookUrl(deps.publicBaseUrl, t.terminalIdentifier)}
                lang={lang}
              />
              {canSetProcessors ? (
                <a
                  href={`/portal/developers/terminals/${t.terminalIdentifier}/processor`}
                  class="button secondary"
                  aria-label={m.terminalProcessor.changeLabel(t.name || t.terminalIdentifier)}
                  data-change-processor
                >
                  {m.terminalProcessor.change}
                </a>
              ) : null}
            </div>
          ))}
        </section>
        <section class="card" aria-labelledby="webhooks-title">
          <h2 id="webhooks-title">{m.dev.webhooks}</h2>
          <p class="muted">{m.dev.webhooksIntro}</p>
          <ul data-webhooks>
            {endpoints.map((e) => (
              <li key={e.webhookId}>
                <a href={`/portal/developers/webhooks/${e.webhookId}`}>{e.url}</a>{" "}
                <EndpointConditionPill enabled={e.enabled} health={health.get(e.webhookId)} lang={lang} />
                <EndpointHealthLines enabled={e.enabled} health={health.get(e.webhookId)} lang={lang} />
              </li>
            ))}
          </ul>
          {canManage ? (
            <WebhookForm
              action="/portal/developers/webhooks"
              csrf={session.csrfToken}
              idPrefix="webhook-"
              urlLabel={m.dev.url}
              keyLabel={m.dev.authKey}
              keyHint={m.dev.authKeyHint}
              disputeLabel={m.dev.disputeEvents}
              disputeHint={m.dev.disputeEventsHint}
              button={m.dev.addWebhook}
            />
          ) : null}
        </section>
      </Layout>
    ));
  }

  const manage = { config: { portalAction: "developers.manage" as const } };
  app.get("/developers", async (request, reply) => sendDevelopers(request, reply, 200));

  app.post("/developers/api-keys", manage, async (request, reply) => {
    const name = formField(request.body, "name").trim().slice(0, 100);
    const { merchantId } = request.portal.session!;
    const actor = portalActor(request);
    const { apiKey, keyId } = await changeAndRecord(
      deps.db,
      (trx) => createApiKey(trx, merchantId, name),
      (created) => ({ merchantId, actor, action: "api-key.create", object: { type: "api-key", id: created.keyId } }),
    );
    request.log.info({ keyId }, "API key created in the portal");
    showOnce(deps, request, reply, { kind: "api-key", apiKey });
    return reply.redirect("/portal/developers?done=key-created", 303);
  });

  const byId = { schema: { params: IdParams }, attachValidation: true, ...manage };
  app.get("/developers/api-keys/:id/revoke", byId, async (request, reply) => {
    const key = request.validationError ? undefined : await findKey(request.portal.session!.merchantId, request.params.id);
    if (!key || key.revokedAt) return sendPortalNotFound(request, reply);
    const m = PORTAL_MESSAGES[request.portal.lang].dev;
    return sendConfirmPage(request, reply, {
      question: m.confirmRevoke(key.name || `${key.prefix}…`),
      consequence: m.confirmRevokeText,
      action: `/portal/developers/api-keys/${key.keyId}/revoke`,
      button: m.revoke,
      back: "/portal/developers",
      section: "developers",
    });
  });

  app.post("/developers/api-keys/:id/revoke", byId, async (request, reply) => {
    const { merchantId } = request.portal.session!;
    const keyId = request.params.id;
    const actor = portalActor(request);
    const revoked =
      !request.validationError &&
      (await changeAndRecord(
        deps.db,
        (trx) => revokeApiKey(trx, merchantId, keyId),
        (done) => (done ? { merchantId, actor, action: "api-key.revoke", object: { type: "api-key", id: keyId } } : undefined),
      ));
    // After the commit: a look-up during the transaction may have cached the key as still valid.
    forgetCachedApiKeys(deps.db);
    // Revoking twice is fine; a key of another merchant (or none) is not found.
    if (!revoked && !(await findKey(request.portal.session!.merchantId, request.params.id))) return sendPortalNotFound(request, reply);
    return reply.redirect("/portal/developers?done=revoked", 303);
  });

  async function findKey(merchantId: string, keyId: string) {
    return (await listApiKeys(deps.db, merchantId)).find((key) => key.keyId === keyId);
  }

  app.post("/developers/webhooks", manage, async (request, reply) => {
    const m = PORTAL_MESSAGES[request.portal.lang].dev;
    const url = formField(request.body, "url").trim();
    const apiKey = formField(request.body, "apiKey").trim() || undefined;
    const urlProblem = checkWebhookUrl(url, deps.allowPrivateTargets);
    const keyError = apiKey === undefined ? undefined : webhookAuthorizationError(apiKey);
    const problem = urlProblem
      ? { label: m.url, text: errorText(new AppError("UnsupportedValue", urlProblem), "url", request.portal.lang) }
      : keyError
        ? { label: m.apiKeyHeader, text: errorText(keyError, "apiKey", request.portal.lang) }
        : null;
    if (problem) {
      return sendDevelopers(
        request,
        reply,
        400,
        <div class="alert" role="alert">
          {`${problem.label}: ${problem.text}`}
        </div>,
      );
    }
    const { merchantId } = request.portal.session!;
    const { endpoint, secrets } = await addEndpoint(
      deps,
      { merchantId, actor: portalActor(request) },
      {
        url,
        apiKey,
        disputeEvents: formField(request.body, "disputeEvents") === "on",
      },
    );
    request.log.info({ webhookId: endpoint.webhookId }, "webhook endpoint added in the portal");
    showOnce(deps, request, reply, { kind: "webhook-keys", why: "added", webhookId: endpoint.webhookId, ...secrets });
    return reply.redirect(`/portal/developers/webhooks/${endpoint.webhookId}?done=added`, 303);
  });
}

/**
 * A terminal's processor as the owner needs it to set things up at the processor: its name, test or
 * live, the one non-secret setting that tells which account it is, and the webhook address to
 * register there. Secrets are left out even masked: an owner replaces them whole on the terminal's
 * processor page, so their last characters would only invite questions.
 */
function TerminalProcessor(props: { processor: ProcessorView; webhookUrl: string; lang: Lang }) {
  const m = PORTAL_MESSAGES[props.lang].dev;
  const { processor } = props;
  const name = m.processorNames[processor.type];
  if (processor.type === "sandbox") {
    return (
      <span class="hint" data-processor="sandbox">
        {`${m.processor}: ${name}`}
      </span>
    );
  }
  const account =
    processor.type === "straumur"
      ? `${m.gatewayTerminal}: ${processor.terminalIdentifier}`
      : processor.type === "adyen"
        ? `${m.merchantAccount}: ${processor.merchantAccount}`
        : null;
  return (
    <>
      <span class="hint" data-processor={processor.type}>
        {`${m.processor}: ${name}, ${m.environments[processor.environment]}`}
      </span>
      {account ? <span class="hint">{account}</span> : null}
      <span class="label">{m.processorWebhook}</span>
      <CopyValue value={props.webhookUrl} lang={props.lang} />
      <span class="hint">{m.processorWebhookHint}</span>
    </>
  );
}
