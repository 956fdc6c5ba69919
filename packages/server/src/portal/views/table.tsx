/** @jsxRuntime automatic @jsxImportSource preact */
// The portal's tables, one place for their markup. The box a table scrolls sideways in on a narrow
// screen takes the keyboard focus (so the arrow keys can scroll a table that holds no link or
// button) and is a named group (not a landmark, so it never repeats its section's name), so a screen reader says what got the focus. In the head row each
// header is a column header (scope="col", so a screen reader names a cell by its column), a column
// of numbers is right-aligned like its cells (class "num"), and a column of row actions is named
// for screen readers only (its buttons say what they do, so a visible heading would only repeat them).
import type { ComponentChildren } from "preact";

export function TableWrap(props: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a fieldset groups form controls; this is a scroll box around a table.
    <div class="table-wrap" role="group" tabindex={0} aria-label={props.label}>
      {props.children}
    </div>
  );
}

/** A column's label, `{ num: label }` for a column of numbers, `{ hidden: label }` for one named only to screen readers. */
export type Column = string | { num: string } | { hidden: string };

export function TableHead(props: { columns: Column[] }) {
  return (
    <thead>
      <tr>
        {props.columns.map((column) => {
          if (typeof column === "string") {
            return (
              <th key={column} scope="col">
                {column}
              </th>
            );
          }
          if ("num" in column) {
            return (
              <th key={column.num} scope="col" class="num">
                {column.num}
              </th>
            );
          }
          return (
            <th key={column.hidden} scope="col">
              <span class="sr-only">{column.hidden}</span>
            </th>
          );
        })}
      </tr>
    </thead>
  );
}
