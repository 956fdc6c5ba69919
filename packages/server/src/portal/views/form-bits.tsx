/** @jsxRuntime automatic @jsxImportSource preact */
// Small pieces of the portal's forms: a problem shown beside its field, an item row's input, and a
// list filter's select.

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

/** A list filter's select: "any" first, then the options, the one in force selected. */
export function FilterSelect(props: {
  name: string;
  label: string;
  anyLabel: string;
  options: ReadonlyArray<{ value: string; label: string }>;
  selected: string | undefined;
}) {
  return (
    <div class="field">
      <label for={props.name}>{props.label}</label>
      <select id={props.name} name={props.name}>
        <option value="">{props.anyLabel}</option>
        {props.options.map((option) => (
          <option key={option.value} value={option.value} selected={option.value === props.selected}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}
