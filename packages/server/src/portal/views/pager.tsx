/** @jsxRuntime automatic @jsxImportSource preact */
// The pager under the portal's paged lists (links, payments): one place for its markup and its two
// links' words, so both lists name themselves to a screen reader the same way ("page 2 of 7, 130
// in all") and offer the same two links.

import type { Lang } from "../../web/i18n.ts";
import { PORTAL_MESSAGES } from "../i18n.ts";

export function Pager(props: { page: number; pages: number; label: string; href: (page: number) => string; lang: Lang }) {
  const { page, pages, label } = props;
  const m = PORTAL_MESSAGES[props.lang].links;
  return (
    <nav class="pager" aria-label={label}>
      {page > 1 ? <a href={props.href(page - 1)}>{m.previous}</a> : null}
      <span class="muted">{label}</span>
      {page < pages ? <a href={props.href(page + 1)}>{m.next}</a> : null}
    </nav>
  );
}
