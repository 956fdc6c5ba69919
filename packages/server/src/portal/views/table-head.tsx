/** @jsxRuntime automatic @jsxImportSource preact */
// The head row of the portal's tables, one place for its markup: each header a column header
// (scope="col", so a screen reader names a cell by its column), a column of numbers right-aligned
// like its cells (class "num").

/** A column's label, or `{ num: label }` for a column of numbers. */
export type Column = string | { num: string };

export function TableHead(props: { columns: Column[] }) {
  return (
    <thead>
      <tr>
        {props.columns.map((column) =>
          typeof column === "string" ? (
            <th key={column} scope="col">
              {column}
            </th>
          ) : (
            <th key={column.num} scope="col" class="num">
              {column.num}
            </th>
          ),
        )}
      </tr>
    </thead>
  );
}
