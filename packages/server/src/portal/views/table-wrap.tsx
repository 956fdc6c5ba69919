/** @jsxRuntime automatic @jsxImportSource preact */
// The box a table scrolls sideways in on a narrow screen. It takes the keyboard focus (so the
// arrow keys can scroll a table that holds no link or button) and is a named region, so a screen
// reader says what got the focus (a section with a name is a region).
import type { ComponentChildren } from "preact";

export function TableWrap(props: { label: string; children: ComponentChildren }) {
  return (
    <section class="table-wrap" tabindex={0} aria-label={props.label}>
      {props.children}
    </section>
  );
}
