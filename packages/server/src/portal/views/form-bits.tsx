/** @jsxRuntime automatic @jsxImportSource preact */
// Small pieces of the portal's forms: a problem shown beside its field, and an item row's input.

export function ItemInput(props: {
  label: string;
  name: string;
  index: number;
  value: string;
  problems: Map<string, string>;
  keyName: string;
  wide?: boolean;
}) {
  const key = `item-${props.index}-${props.keyName}`;
  // Rows are cloned by the script, so the inputs are labelled by wrapping rather than by id.
  return (
    <div class={props.wide ? "field wide" : "field"}>
      <label>
        {props.label}
        <input name={props.name} value={props.value} aria-invalid={props.problems.has(key) ? "true" : undefined} />
      </label>
      <Problem id={key} problems={props.problems} />
    </div>
  );
}

export function Problem(props: { id: string; problems: Map<string, string> }) {
  const text = props.problems.get(props.id);
  return text ? (
    <p class="error" id={`${props.id}-error`}>
      {text}
    </p>
  ) : null;
}
