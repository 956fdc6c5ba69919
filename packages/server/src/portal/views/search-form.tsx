/** @jsxRuntime automatic @jsxImportSource preact */
// The one-field search of the customers and saved-cards pages: a GET form, so it works without
// JavaScript and its result has an address of its own.

export function SearchForm(props: { action: string; label: string; button: string; value: string | undefined }) {
  return (
    <form class="card" method="get" action={props.action}>
      <div class="row">
        <div class="field">
          <label for="search">{props.label}</label>
          <input id="search" name="search" type="search" value={props.value ?? ""} />
        </div>
        <div class="field">
          <button type="submit">{props.button}</button>
        </div>
      </div>
    </form>
  );
}
