/** @jsxRuntime automatic @jsxImportSource preact */
// A value to copy (a terminal identifier, a new key): selectable text, and with JavaScript a copy
// button. Secrets get the highlighted box that says "this is the only time you see it".

import type { Lang } from "../../web/i18n.ts";
import { PORTAL_MESSAGES } from "../i18n.ts";

export function CopyValue(props: { value: string; lang: Lang; secret?: boolean }) {
  const m = PORTAL_MESSAGES[props.lang];
  return (
    <div class="copy-row">
      <code class={props.secret ? "secret" : "mono"} data-value>
        {props.value}
      </code>
      <button type="button" class="secondary" data-copy={props.value} data-copied={m.copied} hidden>
        {m.copy}
      </button>
    </div>
  );
}
