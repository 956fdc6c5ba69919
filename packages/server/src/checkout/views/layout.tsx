/** @jsxRuntime automatic @jsxImportSource preact */
// The document shell shared by every checkout page: head, header with brand and language
// switch, footer. The stylesheet and the script are files; only the theme's colours are inline,
// under the response's CSP nonce.
import type { ComponentChildren } from "preact";
import { type Lang, otherLang } from "../../web/i18n.ts";
import { PageHead } from "../../web/page-head.tsx";
import type { PageTheme } from "../../web/theme.ts";
import { CHECKOUT_CSS_PATH, CHECKOUT_JS_PATH } from "../assets.ts";
import { MESSAGES } from "../i18n.ts";

export interface LayoutProps {
  lang: Lang;
  title: string;
  nonce: string;
  theme: PageTheme;
  /** Where the language link points (the same page in the other language), or none. */
  switchHref?: string | null;
  /** Load the form helper script. */
  script?: boolean;
  children: ComponentChildren;
}

export function Layout(props: LayoutProps) {
  const m = MESSAGES[props.lang];
  const { theme } = props;
  // Only validated #rrggbb values reach this rule (web/theme.ts).
  const themeCss = `:root{--brand:${theme.brand};--on-brand:${theme.onBrand};--accent:${theme.accent}}`;
  return (
    <html lang={props.lang}>
      <PageHead
        title={props.title}
        nonce={props.nonce}
        stylesheetPath={CHECKOUT_CSS_PATH}
        styles={[themeCss]}
        scriptPath={props.script ? CHECKOUT_JS_PATH : null}
        lightOnly
      />
      <body>
        <header class="top">
          <div class="wrap">
            <div class="brand">
              {theme.logoSrc ? (
                <img src={theme.logoSrc} alt={theme.name} height={40} />
              ) : (
                <>
                  <span class="badge" aria-hidden="true">
                    {initial(theme.name)}
                  </span>
                  <span>{theme.name}</span>
                </>
              )}
            </div>
            {props.switchHref ? (
              <a class="lang" href={props.switchHref} hreflang={otherLang(props.lang)} lang={otherLang(props.lang)}>
                {m.switchTo}
              </a>
            ) : null}
          </div>
        </header>
        <main class="wrap">{props.children}</main>
        <footer>{m.poweredBy}</footer>
      </body>
    </html>
  );
}

function initial(name: string): string {
  const first = [...name.trim()][0];
  return first ? first.toLocaleUpperCase() : "•";
}

export function LockIcon() {
  return (
    <svg width="16" height="16" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path
        fill="currentColor"
        d="M12 2a5 5 0 0 0-5 5v3H6a2 2 0 0 0-2 2v8a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-8a2 2 0 0 0-2-2h-1V7a5 5 0 0 0-5-5Zm-3 8V7a3 3 0 1 1 6 0v3H9Z"
      />
    </svg>
  );
}
