/** @jsxRuntime automatic @jsxImportSource preact */
// Pages that say why a link cannot take a payment (410), that it does not exist (404), or that
// something else went wrong. They show no form and no link data beyond the brand.
import type { ComponentChildren } from "preact";
import type { Lang } from "../../web/i18n.ts";
import type { PageTheme } from "../../web/theme.ts";
import { MESSAGES } from "../i18n.ts";
import { Layout } from "./layout.tsx";

export type StatusKind = "Expired" | "Used" | "Disabled" | "Completed" | "NotFound" | "SessionCompleted" | "SessionExpired";

export interface MessagePageProps {
  lang: Lang;
  nonce: string;
  theme: PageTheme;
  switchHref?: string | null;
  title: string;
  text: string;
  /** A second paragraph, e.g. why a sold-out link is sold out right now. */
  extra?: string | undefined;
  icon?: "info" | "ok";
  /** A session's "back to the shop". */
  backHref?: string | null | undefined;
  children?: ComponentChildren;
}

export function MessagePage(props: MessagePageProps) {
  return (
    <Layout
      lang={props.lang}
      title={`${props.title} · ${props.theme.name}`}
      nonce={props.nonce}
      theme={props.theme}
      switchHref={props.switchHref ?? null}
    >
      <section class="card center" aria-labelledby="page-title">
        <span class={props.icon === "ok" ? "icon ok" : "icon"} aria-hidden="true">
          {props.icon === "ok" ? <CheckIcon /> : <InfoIcon />}
        </span>
        <h1 id="page-title">{props.title}</h1>
        <p>{props.text}</p>
        {props.extra ? <p class="muted">{props.extra}</p> : null}
        {props.children}
        {props.backHref ? (
          <p>
            <a href={props.backHref}>{MESSAGES[props.lang].backToShop}</a>
          </p>
        ) : null}
      </section>
    </Layout>
  );
}

export function StatusPage(props: Omit<MessagePageProps, "title" | "text"> & { status: StatusKind }) {
  const copy = MESSAGES[props.lang].status[props.status];
  return <MessagePage {...props} title={copy.title} text={copy.text} />;
}

function InfoIcon() {
  return (
    <svg width="28" height="28" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path fill="currentColor" d="M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20Zm1 15h-2v-6h2v6Zm0-8h-2V7h2v2Z" />
    </svg>
  );
}

function CheckIcon() {
  return (
    <svg width="30" height="30" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path fill="currentColor" d="M9.5 16.2 5.3 12l-1.4 1.4 5.6 5.6 11-11-1.4-1.4z" />
    </svg>
  );
}
