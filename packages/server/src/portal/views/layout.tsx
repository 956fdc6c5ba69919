/** @jsxRuntime automatic @jsxImportSource preact */
// The document shell of every portal page: header with the merchant, the sign-out form and the
// language switch; the main menu; styles inline under the response's CSP nonce; one script file.
import type { ComponentChildren } from "preact";
import { may, type Role } from "../../domain/portal/roles.ts";
import { type Lang, otherLang } from "../../web/i18n.ts";
import { PageHead } from "../../web/page-head.tsx";
import { PORTAL_CSS, PORTAL_JS_PATH } from "../assets.ts";
import { PORTAL_MESSAGES } from "../i18n.ts";

export type Section =
  | "overview"
  | "links"
  | "payments"
  | "customers"
  | "saved-cards"
  | "developers"
  | "themes"
  | "audit"
  | "users"
  | "account";

export interface Viewer {
  email: string;
  merchantName: string;
  csrfToken: string;
  role: Role;
}

export interface PageFrame {
  lang: Lang;
  nonce: string;
  /** The current path with ?lang= of the other language. */
  switchHref: string;
  /** Signed in: the header shows who and the menu; signed out (sign-in page): neither. */
  viewer?: Viewer | undefined;
}

export function Layout(props: PageFrame & { title: string; section?: Section; children: ComponentChildren }) {
  const m = PORTAL_MESSAGES[props.lang];
  const sections: Section[] = ["overview", "links", "payments", "customers", "saved-cards", "developers", "themes", "audit"];
  if (props.viewer && may(props.viewer.role, "users.manage")) sections.push("users");
  sections.push("account");
  return (
    <html lang={props.lang}>
      <PageHead title={`${props.title} · Paylink`} nonce={props.nonce} styles={[PORTAL_CSS]} scriptPath={PORTAL_JS_PATH} />
      <body>
        <a class="skip" href="#main">
          {m.skipToContent}
        </a>
        <header class="top">
          <div class="wrap">
            <a class="brand" href="/portal">
              Paylink
              <small>{props.viewer ? props.viewer.merchantName : m.portal}</small>
            </a>
            <div class="who">
              {props.viewer ? <span>{m.signedInAs(props.viewer.email)}</span> : null}
              <a class="lang" href={props.switchHref} hreflang={otherLang(props.lang)} lang={otherLang(props.lang)}>
                {m.switchTo}
              </a>
              {props.viewer ? (
                <form method="post" action="/portal/sign-out">
                  <input type="hidden" name="csrf" value={props.viewer.csrfToken} />
                  <button class="link-button" type="submit">
                    {m.signOut}
                  </button>
                </form>
              ) : null}
            </div>
          </div>
        </header>
        {props.viewer ? (
          <nav class="main" aria-label={m.mainMenu}>
            <ul>
              {sections.map((section) => (
                <li key={section}>
                  <a href={`/portal/${section}`} aria-current={props.section === section ? "page" : undefined}>
                    {m.nav[section]}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
        <main id="main" class="wrap">
          {props.children}
        </main>
        <footer>Paylink</footer>
      </body>
    </html>
  );
}

/** A hidden CSRF field: every portal form carries one. */
export function Csrf(props: { token: string }) {
  return <input type="hidden" name="csrf" value={props.token} />;
}
