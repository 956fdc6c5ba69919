/** @jsxRuntime automatic @jsxImportSource preact */
// The pager under the portal's paged lists (links, payments): one place for its markup, so both
// lists name themselves to a screen reader the same way ("page 2 of 7, 130 in all") and offer the
// same two links.

export function Pager(props: {
  page: number;
  pages: number;
  label: string;
  previous: string;
  next: string;
  href: (page: number) => string;
}) {
  const { page, pages, label } = props;
  return (
    <nav class="pager" aria-label={label}>
      {page > 1 ? <a href={props.href(page - 1)}>{props.previous}</a> : null}
      <span class="muted">{label}</span>
      {page < pages ? <a href={props.href(page + 1)}>{props.next}</a> : null}
    </nav>
  );
}
