/** @jsxRuntime automatic @jsxImportSource preact */
// One labelled form field: its hint, its error next to it, and the ARIA that ties them together.
import type { JSX } from "preact";
import type { FieldError, FormField } from "../form.ts";
import type { Messages } from "../i18n.ts";

/** Each field's first error, as text: shown next to the field and in the summary at the top. */
export type FieldErrorTexts = Map<FormField, string>;

export function fieldErrorTexts(m: Messages, errors: FieldError[]): FieldErrorTexts {
  const texts: FieldErrorTexts = new Map();
  for (const error of errors) if (!texts.has(error.field)) texts.set(error.field, errorText(m, error));
  return texts;
}

export function errorText(m: Messages, error: FieldError): string {
  return m.errors[error.problem](labelOf(m, error.field));
}

function labelOf(m: Messages, field: FormField): string {
  switch (field) {
    case "cardNumber":
      return m.cardNumber;
    case "cardExpiry":
      return m.cardExpiry;
    case "cardCvc":
      return m.cardCvc;
    case "cardHolder":
      return m.cardHolder;
    default:
      return m.fields[field];
  }
}

export interface FieldProps {
  name: FormField;
  label: string;
  error: string | undefined;
  /** The word for "optional", when the field is. */
  optional?: string | undefined;
  hint?: string | undefined;
  input: (describedBy: string | undefined, invalid: boolean) => JSX.Element;
}

export function Field({ name, label, error, optional, hint, input }: FieldProps) {
  const describedBy = [hint ? `${name}-hint` : "", error ? `${name}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div class="field">
      <label for={name}>
        {label}
        {optional ? <span class="opt"> ({optional})</span> : null}
      </label>
      {hint ? (
        <span class="hint" id={`${name}-hint`}>
          {hint}
        </span>
      ) : null}
      {input(describedBy, error !== undefined)}
      {error ? (
        <p class="error" id={`${name}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
