/** @jsxRuntime automatic @jsxImportSource preact */
// /portal/developers/webhooks/{id} (docs/portal.md#developers): one endpoint — edit its URL and
// Authorization key, enable/disable, delete, reveal and rotate the HMAC key, send a test message —
// and its delivery log with every attempt and a resend button. The admin API's repositories.
// Every POST answers with a redirect to this page, which says what happened (`?done=`); disable,
// delete and rotate ask first on a page of their own; keys reach the page through shown-once.ts.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ComponentChildren } from "preact";
import { listDeliveries, resendDelivery } from "../db/webhook-deliveries-repository.ts";
import { listWebhookEndpoints } from "../db/webhook-endpoints-repository.ts";
import { endpointHealth } from "../db/webhook-health-repository.ts";
import { AppError } from "../domain/errors.ts";
import { may } from "../domain/portal/roles.ts";
import { webhookAuthorizationError } from "../domain/webhooks/authorization-value.ts";
import { checkWebhookUrl } from "../net/outbound-guard.ts";
import {
  changeEndpoint,
  deleteEndpoint,
  revealEndpointSecrets,
  rotateEndpointHmacKey,
  setEndpointEnabled,
} from "../services/webhook-endpoints.ts";
import { formatDateTime } from "../web/i18n.ts";
import { notifyWebhookWorker } from "../webhooks/outbox.ts";
import { enqueueTestMessage } from "../webhooks/test-message.ts";
import type { PortalContext } from "./deps.ts";
import { errorText } from "./error-text.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { frameOf, sendPortalNotFound, sendPortalPage } from "./render.tsx";
import { formField, portalActor } from "./request-state.ts";
import { IdParams, WebhookDeliveryParams } from "./schemas.ts";
import { showOnce, takeShownOnce } from "./shown-once.ts";
import { sendConfirmPage } from "./views/confirm.tsx";
import { CopyValue } from "./views/copy-value.tsx";
import { EndpointConditionPill, EndpointHealthLines } from "./views/endpoint-health.tsx";
import { Csrf, Layout } from "./views/layout.tsx";
import { TableHead, TableWrap } from "./views/table.tsx";
import { WebhookForm } from "./views/webhook-form.tsx";

export function webhookEndpointRoutes(fastify: FastifyInstance, { deps }: PortalContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const byId = { schema: { params: IdParams }, attachValidation: true };
  const manage = { ...byId, config: { portalAction: "developers.manage" as const } };

  async function sendEndpoint(request: FastifyRequest, reply: FastifyReply, id: string, status: number, flash?: ComponentChildren) {
    const session = request.portal.session!;
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang];
    const endpoint = (await listWebhookEndpoints(deps.db, deps.keyring, session.merchantId)).find((e) => e.webhookId === id);
    if (!endpoint) return sendPortalNotFound(request, reply);
    const [{ deliveries }, health] = await Promise.all([
      listDeliveries(deps.db, session.merchantId, { webhookId: id }, { offset: 0, limit: 25 }),
      endpointHealth(deps.db, session.merchantId),
    ]);
    const action = (name: string) => `/portal/developers/webhooks/${id}/${name}`;
    const canManage = may(session.role, "developers.manage");
    const button = (name: string, label: string) => (
      <form method="post" action={action(name)}>
        <Csrf token={session.csrfToken} />
        <button type="submit" class="secondary">
          {label}
        </button>
      </form>
    );
    // A destructive action's button leads to its question (a GET), whose form posts it.
    const askFirst = (name: string, label: string, kind = "secondary") => (
      <a href={action(name)} class={`button ${kind}`}>
        {label}
      </a>
    );
    const shown = status === 200 ? takeShownOnce(deps, request, reply) : undefined;
    const keys = shown?.kind === "webhook-keys" && shown.webhookId === id ? shown : undefined;
    const done = formField(request.query, "done");
    const notices: Record<string, [string, string]> = {
      saved: [m.dev.saved, "ok"],
      "test-queued": [m.dev.testQueued, "ok"],
      resent: [m.dev.resent, "ok"],
      "in-flight": [m.dev.inFlight, "info"],
      disabled: [m.dev.endpointDisabled, "ok"],
      enabled: [m.dev.endpointEnabled, "ok"],
      // A reload of the page that showed the keys: they are not shown again.
      added: [m.dev.keysShownOnce, "info"],
      rotated: [m.dev.keysShownOnce, "info"],
      revealed: [m.dev.keysShownOnce, "info"],
    };
    const notice = keys ? undefined : notices[done];
    flash ??= keys ? (
      <Secrets
        lang={lang}
        apiKey={keys.apiKey}
        hmacKey={keys.hmacKey}
        title={keys.why === "added" ? m.dev.newWebhookTitle : keys.why === "rotated" ? m.dev.rotated : m.dev.keysTitle}
        added={keys.why === "added" ? keys.webhookId : undefined}
      />
    ) : notice ? (
      <div class={`alert ${notice[1]}`} role="status">
        {notice[0]}
      </div>
    ) : undefined;
    return sendPortalPage(reply, status, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={endpoint.url} section="developers">
        <p>
          <a href="/portal/developers">{m.dev.title}</a>
        </p>
        <h1>
          {endpoint.url} <EndpointConditionPill enabled={endpoint.enabled} health={health.get(id)} lang={lang} />
        </h1>
        <EndpointHealthLines enabled={endpoint.enabled} health={health.get(id)} lang={lang} />
        {flash}
        <section class="card">
          <dl class="facts">
            <dt>{m.dev.apiKeyHeader}</dt>
            <dd class="mono">{endpoint.maskedApiKey}</dd>
            <dt>{m.dev.hmacKey}</dt>
            <dd class="mono" data-masked-hmac>
              {endpoint.maskedHmacKey}
            </dd>
          </dl>
          {canManage ? (
            <div class="actions">
              {button("reveal", m.dev.reveal)}
              {askFirst("rotate", m.dev.rotate)}
              {button("test", m.dev.sendTest)}
              {endpoint.enabled ? askFirst("disable", m.dev.disable) : button("enable", m.dev.enable)}
              {askFirst("delete", m.dev.delete, "danger")}
            </div>
          ) : null}
          {canManage ? (
            <WebhookForm
              action={`/portal/developers/webhooks/${id}`}
              csrf={session.csrfToken}
              idPrefix="webhook-"
              urlLabel={m.dev.url}
              url={endpoint.url}
              keyLabel={m.dev.newAuthKey}
              disputeLabel={m.dev.disputeEvents}
              disputeHint={m.dev.disputeEventsHint}
              disputeEvents={endpoint.disputeEvents}
              button={m.dev.edit}
            />
          ) : null}
        </section>
        <section class="card" aria-labelledby="log-title">
          <h2 id="log-title">{m.dev.deliveries}</h2>
          {deliveries.length === 0 ? <p class="muted">{m.dev.noDeliveries}</p> : null}
          {deliveries.map((d) => (
            <details key={d.deliveryId} data-delivery={d.deliveryId} data-event={d.eventType}>
              <summary>
                {`${formatDateTime(d.createdAt, lang)} · ${d.eventType} · ${d.state === "pending" && d.attempts.length > 0 ? m.dev.retrying : (m.dev.deliveryStates[d.state] ?? d.state)} · ${m.dev.attempts}: ${d.attempts.length}`}
              </summary>
              <pre>{JSON.stringify(d.message, null, 2)}</pre>
              <TableWrap label={m.dev.attempts}>
                <table>
                  <TableHead columns={[m.payment.date, m.dev.status, { num: m.dev.latency }, m.dev.details]} />
                  <tbody>
                    {d.attempts.map((a, i) => (
                      <tr key={`${d.deliveryId}-${i}`}>
                        <td>{formatDateTime(a.attemptedAt, lang)}</td>
                        <td>{a.statusCode ?? m.none}</td>
                        <td class="num">{`${a.latencyMs} ms`}</td>
                        <td class="mono">{a.error ?? a.responseExcerpt ?? ""}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
              {canManage ? (
                <form method="post" action={action(`deliveries/${d.deliveryId}/resend`)}>
                  <Csrf token={session.csrfToken} />
                  <button type="submit" class="secondary">
                    {m.dev.resend}
                  </button>
                </form>
              ) : null}
            </details>
          ))}
        </section>
      </Layout>
    ));
  }

  const notice = (text: string, kind = "ok") => (
    <div class={`alert ${kind}`} role={kind === "ok" ? "status" : "alert"}>
      {text}
    </div>
  );

  app.get("/developers/webhooks/:id", byId, async (request, reply) =>
    request.validationError ? sendPortalNotFound(request, reply) : sendEndpoint(request, reply, request.params.id, 200),
  );

  app.post("/developers/webhooks/:id", manage, async (request, reply) => {
    if (request.validationError) return sendPortalNotFound(request, reply);
    const m = PORTAL_MESSAGES[request.portal.lang].dev;
    const url = formField(request.body, "url").trim();
    const apiKey = formField(request.body, "apiKey").trim() || undefined;
    const problem = checkWebhookUrl(url, deps.allowPrivateTargets);
    if (problem) {
      const text = errorText(new AppError("UnsupportedValue", problem), "url", request.portal.lang);
      return sendEndpoint(request, reply, request.params.id, 400, notice(`${m.url}: ${text}`, ""));
    }
    const keyError = apiKey === undefined ? undefined : webhookAuthorizationError(apiKey);
    if (keyError) {
      const text = errorText(keyError, "apiKey", request.portal.lang);
      return sendEndpoint(request, reply, request.params.id, 400, notice(`${m.apiKeyHeader}: ${text}`, ""));
    }
    const { merchantId } = request.portal.session!;
    const endpoint = await changeEndpoint(deps, { merchantId, actor: portalActor(request) }, request.params.id, {
      url,
      apiKey,
      disputeEvents: formField(request.body, "disputeEvents") === "on",
    });
    if (!endpoint) return sendPortalNotFound(request, reply);
    return reply.redirect(`/portal/developers/webhooks/${request.params.id}?done=saved`, 303);
  });

  // The questions of the destructive actions; each one's form posts the action below.
  const question = (action: "disable" | "delete" | "rotate", m: DevMessages, url: string): [string, string, string] =>
    action === "disable"
      ? [m.confirmDisable(url), m.confirmDisableText, m.disable]
      : action === "delete"
        ? [m.confirmDelete(url), m.confirmDeleteText, m.delete]
        : [m.confirmRotate, m.confirmRotateText, m.rotate];
  for (const action of ["disable", "delete", "rotate"] as const) {
    app.get(`/developers/webhooks/:id/${action}`, manage, async (request, reply) => {
      const { merchantId } = request.portal.session!;
      const endpoints = request.validationError ? [] : await listWebhookEndpoints(deps.db, deps.keyring, merchantId);
      const endpoint = endpoints.find((e) => e.webhookId === request.params.id);
      if (!endpoint) return sendPortalNotFound(request, reply);
      const [ask, consequence, button] = question(action, PORTAL_MESSAGES[request.portal.lang].dev, endpoint.url);
      const path = `/portal/developers/webhooks/${endpoint.webhookId}`;
      return sendConfirmPage(request, reply, {
        question: ask,
        consequence,
        action: `${path}/${action}`,
        button,
        back: path,
        section: "developers",
      });
    });
  }

  for (const action of ["enable", "disable"] as const) {
    app.post(`/developers/webhooks/:id/${action}`, manage, async (request, reply) => {
      const { merchantId } = request.portal.session!;
      const changed =
        !request.validationError &&
        (await setEndpointEnabled(deps, { merchantId, actor: portalActor(request) }, request.params.id, action === "enable"));
      if (!changed) return sendPortalNotFound(request, reply);
      return reply.redirect(`/portal/developers/webhooks/${request.params.id}?done=${action}d`, 303);
    });
  }

  app.post("/developers/webhooks/:id/delete", manage, async (request, reply) => {
    const { merchantId } = request.portal.session!;
    const deleted =
      !request.validationError && (await deleteEndpoint(deps, { merchantId, actor: portalActor(request) }, request.params.id));
    if (!deleted) return sendPortalNotFound(request, reply);
    request.log.info({ webhookId: request.params.id }, "webhook endpoint deleted in the portal");
    return reply.redirect("/portal/developers?done=endpoint-deleted", 303);
  });

  // Reveal shows both secrets; rotate makes a new HMAC key (which signs from now on) and shows it.
  for (const action of ["reveal", "rotate"] as const) {
    app.post(`/developers/webhooks/:id/${action}`, manage, async (request, reply) => {
      const { merchantId } = request.portal.session!;
      const id = request.params.id;
      const asker = { merchantId, actor: portalActor(request) };
      const secrets: { apiKey?: string; hmacKey: string } | undefined = request.validationError
        ? undefined
        : action === "reveal"
          ? await revealEndpointSecrets(deps, asker, id)
          : await rotateEndpointHmacKey(deps, asker, id);
      if (!secrets) return sendPortalNotFound(request, reply);
      if (action === "rotate") request.log.info({ webhookId: id }, "webhook HMAC key rotated in the portal");
      const why = action === "reveal" ? "revealed" : "rotated";
      showOnce(deps, request, reply, { kind: "webhook-keys", why, webhookId: id, ...secrets });
      return reply.redirect(`/portal/developers/webhooks/${id}?done=${why}`, 303);
    });
  }

  app.post("/developers/webhooks/:id/test", manage, async (request, reply) => {
    const queued = request.validationError
      ? undefined
      : await enqueueTestMessage(deps.db, request.portal.session!.merchantId, request.params.id);
    if (!queued) return sendPortalNotFound(request, reply);
    return reply.redirect(`/portal/developers/webhooks/${request.params.id}?done=test-queued`, 303);
  });

  const deliveryOptions = { schema: { params: WebhookDeliveryParams }, attachValidation: true, config: manage.config };
  app.post("/developers/webhooks/:id/deliveries/:deliveryId/resend", deliveryOptions, async (request, reply) => {
    const { merchantId } = request.portal.session!;
    const outcome = request.validationError ? "not-found" : await resendDelivery(deps.db, merchantId, request.params.deliveryId);
    if (outcome === "not-found") return sendPortalNotFound(request, reply);
    if (outcome === "resent") notifyWebhookWorker();
    return reply.redirect(`/portal/developers/webhooks/${request.params.id}?done=${outcome === "resent" ? "resent" : "in-flight"}`, 303);
  });
}

type DevMessages = (typeof PORTAL_MESSAGES)["en"]["dev"];

function Secrets(props: { lang: "is" | "en"; title: string; apiKey?: string; hmacKey: string; added?: string }) {
  const m = PORTAL_MESSAGES[props.lang].dev;
  return (
    <div class="alert ok" role="status" data-secrets data-new-webhook={props.added}>
      <h2>{props.title}</h2>
      {props.added ? <p>{m.secretsOnce}</p> : null}
      {props.apiKey ? (
        <>
          <span class="label">{m.apiKeyHeader}</span>
          <CopyValue value={props.apiKey} lang={props.lang} secret />
        </>
      ) : null}
      <span class="label">{m.hmacKey}</span>
      <CopyValue value={props.hmacKey} lang={props.lang} secret />
    </div>
  );
}
