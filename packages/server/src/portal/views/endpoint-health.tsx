/** @jsxRuntime automatic @jsxImportSource preact */
// A webhook endpoint's condition in colour, and what it means in words: messages waiting for a
// retry and since when, the breaker's pause, messages given up on (domain/webhooks/endpoint-condition.ts).
import { type EndpointHealth, endpointCondition } from "../../domain/webhooks/endpoint-condition.ts";
import { formatDateTime, type Lang } from "../../web/i18n.ts";
import { PORTAL_MESSAGES } from "../i18n.ts";

const TONES = { healthy: "ok", failing: "bad", paused: "bad", disabled: "" } as const;

export function EndpointConditionPill(props: { enabled: boolean; health: EndpointHealth | undefined; lang: Lang }) {
  const condition = endpointCondition(props.enabled, props.health);
  return (
    <span class={`pill ${TONES[condition]}`} data-condition={condition}>
      {PORTAL_MESSAGES[props.lang].dev.conditions[condition]}
    </span>
  );
}

/** The sentences behind a failing or paused endpoint's pill; nothing for a healthy or disabled one. */
export function EndpointHealthLines(props: { enabled: boolean; health: EndpointHealth | undefined; lang: Lang }) {
  const { health, lang } = props;
  if (!props.enabled || !health) return null;
  const m = PORTAL_MESSAGES[lang].dev;
  const at = (time: Date) => formatDateTime(time, lang);
  const lines = [
    health.pausedUntil ? m.healthPaused(at(health.pausedUntil)) : null,
    health.retrying > 0 && health.failingSince && health.nextRetryAt
      ? m.healthRetrying(health.retrying, at(health.failingSince), at(health.nextRetryAt))
      : null,
    health.gaveUp > 0 ? m.healthGaveUp(health.gaveUp) : null,
  ].filter((line): line is string => line !== null);
  return lines.length === 0 ? null : (
    <ul class="health" data-health>
      {lines.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}
