/** @jsxRuntime automatic @jsxImportSource preact */
// The head row of the portal's tables, one place for its markup: each header a column header
// (scope="col", so a screen reader names a cell by its column), a column of numbers right-aligned
// like its cells (class "num"), and a column of row actions named for screen readers only (its
// buttons say what they do, so a visible heading would only repeat them).

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
