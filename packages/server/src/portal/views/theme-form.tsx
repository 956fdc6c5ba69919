/** @jsxRuntime automatic @jsxImportSource preact */
// The theme form with a live preview of the checkout page's header, a line and the pay button, in
// the theme's colours (the checkout's own contrast rule). Without JavaScript the preview shows the
// saved theme; with it, the preview follows the name and colour as they are typed.

import type { Theme } from "../../db/merchants-repository.ts";
import { formatMoney, type Lang } from "../../web/i18n.ts";
import { DEFAULT_THEME, pageTheme } from "../../web/theme.ts";
import { PORTAL_MESSAGES } from "../i18n.ts";
import { Problem } from "./form-bits.tsx";
import { Csrf } from "./layout.tsx";

export interface ThemeFormValues {
  name: string;
  /** "" when the theme has no colour of its own (the checkout's default is used). */
  primaryColor: string;
}

export function ThemeForm(props: {
  lang: Lang;
  nonce: string;
  csrf: string;
  action: string;
  values: ThemeFormValues;
  theme?: Theme | undefined;
  problems: Map<string, string>;
  merchantName: string;
}) {
  const m = PORTAL_MESSAGES[props.lang].themes;
  const shown = pageTheme({
    merchantName: props.merchantName,
    theme: {
      themeKey: props.theme?.themeKey ?? "",
      name: props.values.name,
      primaryColor: props.values.primaryColor,
      logoVersion: props.theme?.logoVersion ?? null,
    },
  });
  const invalid = (key: string) => (props.problems.has(key) ? ("true" as const) : undefined);
  return (
    <form method="post" action={props.action} class="grid two">
      <Csrf token={props.csrf} />
      <div class="card">
        <div class="field">
          <label for="name">{m.name}</label>
          <input id="name" name="name" value={props.values.name} maxlength={100} required aria-invalid={invalid("name")} />
          <Problem id="name" problems={props.problems} />
        </div>
        <div class="field">
          <label for="primaryColor">{m.colour}</label>
          <input id="primaryColor" name="primaryColor" type="color" value={shown.brand} aria-invalid={invalid("primaryColor")} />
          <Problem id="primaryColor" problems={props.problems} />
          <label>
            <input type="checkbox" name="defaultColour" value="1" checked={props.values.primaryColor === ""} /> {m.defaultColour}
          </label>
        </div>
        <div class="field">
          <label for="logoUrl">
            {m.logo} <span class="hint">{m.logoHint}</span>
          </label>
          <input id="logoUrl" name="logoUrl" type="text" inputmode="url" aria-invalid={invalid("logoUrl")} />
          <Problem id="logoUrl" problems={props.problems} />
        </div>
        {props.theme?.logoVersion ? (
          <div class="field">
            <label>
              <input type="checkbox" name="removeLogo" value="1" /> {m.removeLogo}
            </label>
          </div>
        ) : null}
        <button type="submit">{props.theme ? m.save : m.create}</button>
      </div>
      <section class="card" aria-labelledby="preview-title">
        <h2 id="preview-title">{m.preview}</h2>
        <style nonce={props.nonce}>{`[data-preview]{--brand:${shown.brand};--on-brand:${shown.onBrand}}`}</style>
        <div class="preview" data-preview data-default-brand={DEFAULT_THEME.brand} aria-hidden="true">
          <div class="p-top">
            {shown.logoSrc ? <img src={shown.logoSrc} alt="" height={32} /> : <span class="p-badge">{initial(shown.name)}</span>}
            <span data-preview-name>{shown.name}</span>
          </div>
          <div class="p-body">
            <div class="p-line">
              <span>{m.previewItem}</span>
              <span>{formatMoney(1090000, "ISK", props.lang)}</span>
            </div>
            <span class="p-pay">{`${m.previewPay} ${formatMoney(1090000, "ISK", props.lang)}`}</span>
          </div>
        </div>
      </section>
    </form>
  );
}

function initial(name: string): string {
  const first = [...name.trim()][0];
  return first ? first.toLocaleUpperCase() : "•";
}
