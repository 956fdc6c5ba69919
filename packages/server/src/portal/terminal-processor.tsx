/** @jsxRuntime automatic @jsxImportSource preact */
// /portal/developers/terminals/{terminalIdentifier}/processor (docs/portal.md#developers): an owner
// sets which processor takes a terminal's money, through the very use case the admin API's PUT
// …/processor calls, so the same rules judge the settings and the same audit entry records the
// change. Two steps that work without JavaScript: a GET form chooses the type (`?type=`), then that
// type's form posts its settings. No secret is ever written into the page, not even one just
// typed: an empty secret field keeps the saved secret when the type stays the same. The API base
// (`baseUrl`) is the operator's setting alone: the portal neither shows nor sets it, and a saved
// one stays while the type does.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import Type from "typebox";
import { listTerminals } from "../db/merchant-reads-repository.ts";
import type { Terminal } from "../db/merchants-repository.ts";
import { loadTerminalProcessor } from "../db/terminal-processors-repository.ts";
import { AppError } from "../domain/errors.ts";
import { processorConfigFrom } from "../domain/processors/processor-settings.ts";
import { errorName } from "../payments/error-name.ts";
import {
  isProcessorType,
  PROCESSOR_TYPES,
  type ProcessorConfig,
  type ProcessorType,
  processorView,
  SECRET_FIELDS,
} from "../payments/processor-config.ts";
import { SecretDecryptionError } from "../security/keyring.ts";
import { setTerminalProcessor } from "../services/terminal-processor.ts";
import type { Lang } from "../web/i18n.ts";
import type { PortalContext } from "./deps.ts";
import { errorText } from "./error-text.ts";
import { PORTAL_MESSAGES } from "./i18n.ts";
import { frameOf, sendPortalNotFound, sendPortalPage } from "./render.tsx";
import { formField, portalActor } from "./request-state.ts";
import { Problem } from "./views/form-bits.tsx";
import { Csrf, Layout } from "./views/layout.tsx";

/** Terminal identifiers as Paylink issues them; anything else cannot be one of the merchant's. */
const TerminalParams = Type.Object({ terminalIdentifier: Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" }) });

/** Each type's fields on the form, in order: the admin API's, less the operator's `baseUrl`. */
const FORM_FIELDS = {
  sandbox: [],
  straumur: ["environment", "apiKey", "terminalIdentifier", "hmacKey", "themeKey"],
  adyen: ["environment", "apiKey", "merchantAccount", "hmacKey", "liveEndpointUrlPrefix"],
  stripe: ["secretKey", "webhookSecret"],
} as const satisfies { [T in ProcessorType]: readonly Exclude<keyof Extract<ProcessorConfig, { type: T }>, "type" | "baseUrl">[] };

type FormFieldName = (typeof FORM_FIELDS)[Exclude<ProcessorType, "sandbox">][number];

const MAX_LENGTH: Record<FormFieldName, number> = {
  environment: 4,
  apiKey: 1000,
  terminalIdentifier: 64,
  hmacKey: 256,
  themeKey: 64,
  merchantAccount: 200,
  liveEndpointUrlPrefix: 100,
  secretKey: 1000,
  webhookSecret: 1000,
};

interface SettingsForm {
  type: ProcessorType;
  /** The non-secret values shown in the fields (as entered, or as saved); never a secret. */
  values: Record<string, string>;
  /** Keyed by the field's id (`processor-<field>`), as the form shows them. */
  problems: Map<string, string>;
}

const fieldsOf = (type: ProcessorType): readonly FormFieldName[] => FORM_FIELDS[type];
const isSecret = (type: ProcessorType, field: string) => (SECRET_FIELDS[type] as readonly string[]).includes(field);
const fieldId = (field: string) => `processor-${field}`;

/** A field of a saved configuration as text ("" when it has none). */
function savedField(config: ProcessorConfig, field: string): string {
  const value = (config as unknown as Record<string, unknown>)[field];
  return typeof value === "string" ? value : "";
}

export function terminalProcessorRoutes(fastify: FastifyInstance, { deps }: PortalContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // Owners only: the guard answers every other role with the portal's refusal before anything runs.
  const options = { schema: { params: TerminalParams }, attachValidation: true, config: { portalAction: "processors.manage" as const } };
  const path = "/developers/terminals/:terminalIdentifier/processor";

  /** The signed-in merchant's terminal of the address; another merchant's is not found. */
  async function terminalOf(request: FastifyRequest, terminalIdentifier: string): Promise<Terminal | undefined> {
    if (request.validationError) return undefined;
    const terminals = await listTerminals(deps.db, request.portal.session!.merchantId);
    return terminals.find((t) => t.terminalIdentifier === terminalIdentifier);
  }

  /**
   * The configuration saved now, to fill in its non-secret values and keep its secrets; undefined
   * when it cannot be read (secrets under a key the keyring no longer has), so that an owner can
   * still replace it.
   */
  async function savedConfig(request: FastifyRequest, terminalIdentifier: string): Promise<ProcessorConfig | undefined> {
    try {
      return await loadTerminalProcessor(deps.db, deps.keyring, terminalIdentifier);
    } catch (error) {
      const unreadable = error instanceof SecretDecryptionError || (error instanceof Error && error.cause instanceof AppError);
      if (!unreadable) throw error;
      request.log.warn(
        { terminalIdentifier, error: errorName(error) },
        "saved processor configuration unreadable: the portal form starts empty",
      );
      return undefined;
    }
  }

  app.get(path, options, async (request, reply) => {
    const terminal = await terminalOf(request, request.params.terminalIdentifier);
    if (!terminal) return sendPortalNotFound(request, reply);
    const saved = await savedConfig(request, terminal.terminalIdentifier);
    const asked = formField(request.query, "type");
    // No type, or one that is none of them: the first step, as a filter that cannot be read filters nothing.
    if (!isProcessorType(asked)) return sendProcessorPage(request, reply, 200, terminal, saved);
    const values: Record<string, string> = { environment: "test" };
    if (saved?.type === asked) {
      for (const field of fieldsOf(asked)) if (!isSecret(asked, field)) values[field] = savedField(saved, field);
    }
    return sendProcessorPage(request, reply, 200, terminal, saved, { type: asked, values, problems: new Map() });
  });

  app.post(path, options, async (request, reply) => {
    const terminal = await terminalOf(request, request.params.terminalIdentifier);
    if (!terminal) return sendPortalNotFound(request, reply);
    const { lang } = request.portal;
    const saved = await savedConfig(request, terminal.terminalIdentifier);
    const type = formField(request.body, "type");
    if (!isProcessorType(type)) {
      return sendProcessorPage(request, reply, 400, terminal, saved, undefined, PORTAL_MESSAGES[lang].terminalProcessor.typeProblem);
    }
    const keep = saved?.type === type ? saved : undefined;
    const input: Record<string, string> = { type };
    const values: Record<string, string> = {};
    for (const field of fieldsOf(type)) {
      const entered = formField(request.body, field).trim();
      if (isSecret(type, field)) input[field] = entered === "" && keep ? savedField(keep, field) : entered;
      else input[field] = values[field] = entered;
    }
    let config: ProcessorConfig;
    try {
      // Fields the form does not have (baseUrl among them) never reach the rules: input holds only the form's.
      config = processorConfigFrom(input, { allowBaseUrl: false });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const field = error.field?.replace(/^processor\./, "") ?? "type";
      const problems = new Map([[fieldId(field), errorText(error, fieldId(field), lang)]]);
      return sendProcessorPage(request, reply, 400, terminal, saved, { type, values, problems });
    }
    if (keep && "baseUrl" in keep && keep.baseUrl !== null && config.type !== "sandbox") config = { ...config, baseUrl: keep.baseUrl };
    const { merchantId } = request.portal.session!;
    const found = await setTerminalProcessor(deps, { merchantId, actor: portalActor(request) }, terminal.terminalIdentifier, config);
    if (!found) return sendPortalNotFound(request, reply);
    // The type only: the configuration holds secrets.
    request.log.info({ terminalIdentifier: terminal.terminalIdentifier, type: config.type }, "terminal processor changed in the portal");
    return reply.redirect("/portal/developers?done=processor-changed", 303);
  });
}

function sendProcessorPage(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  terminal: Terminal,
  saved: ProcessorConfig | undefined,
  form?: SettingsForm,
  typeProblem?: string,
) {
  const session = request.portal.session!;
  const { lang } = request.portal;
  const m = PORTAL_MESSAGES[lang].terminalProcessor;
  const dev = PORTAL_MESSAGES[lang].dev;
  const action = `/portal/developers/terminals/${terminal.terminalIdentifier}/processor`;
  const view = processorView(saved ?? { type: "sandbox" });
  const current = `${dev.processorNames[view.type]}${"environment" in view ? `, ${dev.environments[view.environment]}` : ""}`;
  const title = m.title(terminal.name || terminal.terminalIdentifier);
  return sendPortalPage(reply, status, (nonce) => (
    <Layout {...frameOf(request, nonce)} title={title} section="developers">
      <p>
        <a href="/portal/developers">{m.back}</a>
      </p>
      <h1>{title}</h1>
      <p class="muted" data-current-processor={view.type}>
        <span class="mono">{terminal.terminalIdentifier}</span>
        {` · ${m.current}: ${current}`}
      </p>
      {form ? (
        <SettingsFormCard lang={lang} csrf={session.csrfToken} action={action} form={form} keepSecrets={saved?.type === form.type} />
      ) : (
        <form method="get" action={action} class="card">
          <fieldset class="field" aria-describedby={typeProblem ? "type-error" : undefined}>
            <legend>
              {m.stepType}: {m.chooseType}
            </legend>
            {PROCESSOR_TYPES.map((type) => (
              <label key={type}>
                <input type="radio" name="type" value={type} checked={type === view.type} required /> {dev.processorNames[type]}
              </label>
            ))}
          </fieldset>
          {typeProblem ? (
            <p class="error" id="type-error">
              {typeProblem}
            </p>
          ) : null}
          <div class="actions">
            <button type="submit">{m.continue}</button>
            <a href="/portal/developers" class="button secondary">
              {m.cancel}
            </a>
          </div>
        </form>
      )}
    </Layout>
  ));
}

function SettingsFormCard(props: { lang: Lang; csrf: string; action: string; form: SettingsForm; keepSecrets: boolean }) {
  const m = PORTAL_MESSAGES[props.lang].terminalProcessor;
  const dev = PORTAL_MESSAGES[props.lang].dev;
  const { type, values, problems } = props.form;
  const fields = fieldsOf(type);
  // A problem the form has no field for (none is expected) is still said, above the fields.
  const stray = [...problems].filter(([id]) => !fields.some((field) => fieldId(field) === id));
  return (
    <form method="post" action={props.action} class="card">
      <Csrf token={props.csrf} />
      <input type="hidden" name="type" value={type} />
      <h2>{`${m.stepSettings}: ${dev.processorNames[type]}`}</h2>
      {stray.map(([id, text]) => (
        <div key={id} class="alert" role="alert">
          {text}
        </div>
      ))}
      {type === "sandbox" ? <p>{m.sandboxConfirm}</p> : null}
      {fields.map((field) => (
        <SettingField
          key={field}
          lang={props.lang}
          type={type}
          field={field}
          values={values}
          problems={problems}
          keep={props.keepSecrets}
        />
      ))}
      {type === "sandbox" ? null : <p class="hint">{m.webhookAfter}</p>}
      <div class="actions">
        <button type="submit">{type === "sandbox" ? m.saveSandbox : m.save}</button>
        <a href={props.action} class="button secondary">
          {m.otherType}
        </a>
      </div>
    </form>
  );
}

function SettingField(props: {
  lang: Lang;
  type: ProcessorType;
  field: FormFieldName;
  values: Record<string, string>;
  problems: Map<string, string>;
  keep: boolean;
}) {
  const m = PORTAL_MESSAGES[props.lang].terminalProcessor;
  const dev = PORTAL_MESSAGES[props.lang].dev;
  const { field } = props;
  const id = fieldId(field);
  const problem = props.problems.has(id);
  const labels: Record<FormFieldName, string> = {
    environment: m.environment,
    apiKey: m.apiKey,
    terminalIdentifier: m.gatewayTerminal,
    hmacKey: m.hmacKey,
    themeKey: m.themeKey,
    merchantAccount: m.merchantAccount,
    liveEndpointUrlPrefix: m.liveEndpointUrlPrefix,
    secretKey: m.secretKey,
    webhookSecret: m.webhookSecret,
  };
  const hint = isSecret(props.type, field)
    ? props.keep
      ? m.keepSecret
      : m.secretNeverShown
    : field === "liveEndpointUrlPrefix"
      ? m.liveEndpointUrlPrefixHint
      : undefined;
  const described = [hint ? `${id}-hint` : "", problem ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  const common = { id, name: field, "aria-invalid": problem ? ("true" as const) : undefined, "aria-describedby": described };
  return (
    <div class="field">
      <label for={id}>{labels[field]}</label>
      {field === "environment" ? (
        <select {...common}>
          {(["test", "live"] as const).map((environment) => (
            <option key={environment} value={environment} selected={props.values.environment === environment}>
              {dev.environments[environment]}
            </option>
          ))}
        </select>
      ) : isSecret(props.type, field) ? (
        // Never a value: neither the saved secret nor one typed into a form that came back with a problem.
        <input {...common} type="password" autocomplete="off" maxlength={MAX_LENGTH[field]} required={!props.keep} />
      ) : (
        <input {...common} value={props.values[field] ?? ""} maxlength={MAX_LENGTH[field]} autocomplete="off" />
      )}
      {hint ? (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
      <Problem id={id} problems={props.problems} />
    </div>
  );
}
