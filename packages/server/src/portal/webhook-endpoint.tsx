/** @jsxRuntime automatic @jsxImportSource preact */
// /portal/developers/webhooks/{id} (docs/portal.md#developers): one endpoint — edit its URL and
// Authorization key, enable/disable, delete, reveal and rotate the HMAC key, send a test message —
// and its delivery log with every attempt and a resend button. The admin API's repositories.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ComponentChildren } from "preact";
import { listDeliveries, resendDelivery } from "../db/webhook-deliveries-repository.ts";
import {
  deleteWebhookEndpoint,
  listWebhookEndpoints,
  revealWebhookSecrets,
  rotateWebhookHmacKey,
  updateWebhookEndpoint,
} from "../db/webhook-endpoints-repository.ts";
import { AppError } from "../domain/errors.ts";
import { webhookAuthorizationError } from "../domain/webhooks/authorization-value.ts";
import { checkWebhookUrl } from "../net/outbound-guard.ts";
import { formatDateTime } from "../web/i18n.ts";
import { notifyWebhookWorker } from "../webhooks/outbox.ts";
import { enqueueTestMessage } from "../webhooks/test-message.ts";
import type { PortalContext } from "./deps.ts";
import { errorText } from "./error-text.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { frameOf, sendPortalNotFound, sendPortalPage } from "./render.tsx";
import { formField } from "./request-state.ts";
import { IdParams, WebhookDeliveryParams } from "./schemas.ts";
import { CopyValue } from "./views/copy-value.tsx";
import { Csrf, Layout } from "./views/layout.tsx";
import { TableHead, TableWrap } from "./views/table.tsx";
import { WebhookForm } from "./views/webhook-form.tsx";

export function webhookEndpointRoutes(fastify: FastifyInstance, { deps }: PortalContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const byId = { schema: { params: IdParams }, attachValidation: true };

  async function sendEndpoint(request: FastifyRequest, reply: FastifyReply, id: string, status: number, flash?: ComponentChildren) {
    const session = request.portal.session!;
    const { lang } = request.portal;
    const m = PORTAL_MESSAGES[lang];
    const endpoint = (await listWebhookEndpoints(deps.db, deps.keyring, session.merchantId)).find((e) => e.webhookId === id);
    if (!endpoint) return sendPortalNotFound(request, reply);
    const { deliveries } = await listDeliveries(deps.db, session.merchantId, { webhookId: id }, { offset: 0, limit: 25 });
    const action = (name: string) => `/portal/developers/webhooks/${id}/${name}`;
    const button = (name: string, label: string, kind = "secondary") => (
      <form method="post" action={action(name)}>
        <Csrf token={session.csrfToken} />
        <button type="submit" class={kind}>
          {label}
        </button>
      </form>
    );
    return sendPortalPage(reply, status, (nonce) => (
      <Layout {...frameOf(request, nonce)} title={endpoint.url} section="developers">
        <p>
          <a href="/portal/developers">{m.dev.title}</a>
        </p>
        <h1>
          {endpoint.url} <span class={endpoint.enabled ? "pill ok" : "pill"}>{endpoint.enabled ? m.dev.enabled : m.dev.disabled}</span>
        </h1>
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
          <div class="actions">
            {button("reveal", m.dev.reveal)}
            {button("rotate", m.dev.rotate)}
            {button("test", m.dev.sendTest)}
            {button(endpoint.enabled ? "disable" : "enable", endpoint.enabled ? m.dev.disable : m.dev.enable)}
            {button("delete", m.dev.delete, "danger")}
          </div>
          <WebhookForm
            action={`/portal/developers/webhooks/${id}`}
            csrf={session.csrfToken}
            idPrefix="webhook-"
            urlLabel={m.dev.url}
            url={endpoint.url}
            keyLabel={m.dev.newAuthKey}
            button={m.dev.edit}
          />
        </section>
        <section class="card" aria-labelledby="log-title">
          <h2 id="log-title">{m.dev.deliveries}</h2>
          {deliveries.length === 0 ? <p class="muted">{m.dev.noDeliveries}</p> : null}
          {deliveries.map((d) => (
            <details key={d.deliveryId} data-delivery={d.deliveryId} data-event={d.eventType}>
              <summary>
                {`${formatDateTime(d.createdAt, lang)} · ${d.eventType} · ${m.dev.deliveryStates[d.state] ?? d.state} · ${m.dev.attempts}: ${d.attempts.length}`}
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
              <form method="post" action={action(`deliveries/${d.deliveryId}/resend`)}>
                <Csrf token={session.csrfToken} />
                <button type="submit" class="secondary">
                  {m.dev.resend}
                </button>
              </form>
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

  app.post("/developers/webhooks/:id", byId, async (request, reply) => {
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
    const changes = { url, apiKey };
    const endpoint = await updateWebhookEndpoint(deps.db, deps.keyring, request.portal.session!.merchantId, request.params.id, changes);
    if (!endpoint) return sendPortalNotFound(request, reply);
    return sendEndpoint(request, reply, request.params.id, 200, notice(m.saved));
  });

  for (const action of ["enable", "disable"] as const) {
    app.post(`/developers/webhooks/:id/${action}`, byId, async (request, reply) => {
      const { merchantId } = request.portal.session!;
      const changed =
        !request.validationError &&
        (await updateWebhookEndpoint(deps.db, deps.keyring, merchantId, request.params.id, { enabled: action === "enable" }));
      if (!changed) return sendPortalNotFound(request, reply);
      if (action === "enable") notifyWebhookWorker();
      return reply.redirect(`/portal/developers/webhooks/${request.params.id}`, 303);
    });
  }

  app.post("/developers/webhooks/:id/delete", byId, async (request, reply) => {
    const deleted =
      !request.validationError && (await deleteWebhookEndpoint(deps.db, request.portal.session!.merchantId, request.params.id));
    if (!deleted) return sendPortalNotFound(request, reply);
    request.log.info({ webhookId: request.params.id }, "webhook endpoint deleted in the portal");
    return reply.redirect("/portal/developers", 303);
  });

  // Reveal shows both secrets; rotate makes a new HMAC key (which signs from now on) and shows it.
  for (const action of ["reveal", "rotate"] as const) {
    app.post(`/developers/webhooks/:id/${action}`, byId, async (request, reply) => {
      const { merchantId } = request.portal.session!;
      const id = request.params.id;
      const secrets: { apiKey?: string; hmacKey: string } | undefined = request.validationError
        ? undefined
        : action === "reveal"
          ? await revealWebhookSecrets(deps.db, deps.keyring, merchantId, id)
          : await rotateWebhookHmacKey(deps.db, deps.keyring, merchantId, id);
      if (!secrets) return sendPortalNotFound(request, reply);
      if (action === "rotate") request.log.info({ webhookId: id }, "webhook HMAC key rotated in the portal");
      const m = PORTAL_MESSAGES[request.portal.lang].dev;
      const title = action === "reveal" ? m.reveal : m.rotated;
      const shown = <Secrets lang={request.portal.lang} apiKey={secrets.apiKey} hmacKey={secrets.hmacKey} title={title} />;
      return sendEndpoint(request, reply, id, 200, shown);
    });
  }

  app.post("/developers/webhooks/:id/test", byId, async (request, reply) => {
    const queued = request.validationError
      ? undefined
      : await enqueueTestMessage(deps.db, request.portal.session!.merchantId, request.params.id);
    if (!queued) return sendPortalNotFound(request, reply);
    return sendEndpoint(request, reply, request.params.id, 200, notice(PORTAL_MESSAGES[request.portal.lang].dev.testQueued));
  });

  const deliveryOptions = { schema: { params: WebhookDeliveryParams }, attachValidation: true };
  app.post("/developers/webhooks/:id/deliveries/:deliveryId/resend", deliveryOptions, async (request, reply) => {
    const { merchantId } = request.portal.session!;
    const outcome = request.validationError ? "not-found" : await resendDelivery(deps.db, merchantId, request.params.deliveryId);
    if (outcome === "not-found") return sendPortalNotFound(request, reply);
    if (outcome === "resent") notifyWebhookWorker();
    const m = PORTAL_MESSAGES[request.portal.lang].dev;
    return sendEndpoint(
      request,
      reply,
      request.params.id,
      200,
      notice(outcome === "resent" ? m.resent : m.inFlight, outcome === "resent" ? "ok" : "info"),
    );
  });
}

function Secrets(props: { lang: "is" | "en"; title: string; apiKey?: string; hmacKey: string }) {
  const m = PORTAL_MESSAGES[props.lang].dev;
  return (
    <div class="alert ok" role="status" data-secrets>
      <p>{props.title}</p>
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
