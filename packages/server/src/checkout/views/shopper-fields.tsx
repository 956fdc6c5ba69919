/** @jsxRuntime automatic @jsxImportSource preact */
// "Your details": the shopper fields the link asks for, in the merchant's order, with the browser
// autofill hints of each.
import type { ShopperField, ShopperInfo } from "../../domain/links/types.ts";
import { type RedisplayValues, visibleShopperFields } from "../form.ts";
import type { Messages } from "../i18n.ts";
import { Field, type FieldErrorTexts } from "./field.tsx";

interface InputSpec {
  type?: "text" | "tel" | "email";
  autocomplete: string;
  inputmode?: "numeric" | "tel" | "email" | "text";
  multiline?: boolean;
  maxLength: number;
  spellcheck?: boolean;
  autocapitalize?: "off" | "words";
}

/** Browser autofill names (WHATWG autocomplete tokens) for each shopper field. */
const SHOPPER_INPUTS: Record<ShopperField, InputSpec> = {
  Ssn: { autocomplete: "off", inputmode: "numeric", maxLength: 11 },
  FullName: { autocomplete: "name", maxLength: 200, autocapitalize: "words" },
  Address: { autocomplete: "address-line1", maxLength: 200 },
  PostCode: { autocomplete: "postal-code", maxLength: 20 },
  City: { autocomplete: "address-level2", maxLength: 100 },
  Country: { autocomplete: "country-name", maxLength: 100 },
  Telephone: { type: "tel", autocomplete: "tel", inputmode: "tel", maxLength: 20 },
  EmailAddress: { type: "email", autocomplete: "email", inputmode: "email", maxLength: 254, spellcheck: false, autocapitalize: "off" },
  Comments: { autocomplete: "off", multiline: true, maxLength: 1000 },
};

interface ShopperFieldsProps {
  m: Messages;
  shopperInfo: ShopperInfo[];
  values: RedisplayValues;
  errors: FieldErrorTexts;
}

export function ShopperFields({ m, shopperInfo, values, errors }: ShopperFieldsProps) {
  const shown = visibleShopperFields(shopperInfo);
  if (shown.length === 0) return null;
  return (
    <fieldset>
      <legend>{m.yourDetails}</legend>
      {shown.map((entry) => (
        <ShopperInput m={m} entry={entry} values={values} errors={errors} />
      ))}
    </fieldset>
  );
}

function ShopperInput({ m, entry, values, errors }: { m: Messages; entry: ShopperInfo; values: RedisplayValues; errors: FieldErrorTexts }) {
  const spec = SHOPPER_INPUTS[entry.field];
  const prefilled = entry.requirementType === "Prefilled";
  const value = prefilled ? (entry.prefilledValue ?? "") : (values[entry.field] ?? "");
  return (
    <Field
      name={entry.field}
      label={m.fields[entry.field]}
      error={errors.get(entry.field)}
      optional={entry.requirementType === "Optional" ? m.optional : undefined}
      input={(describedBy, invalid) =>
        spec.multiline ? (
          <textarea
            id={entry.field}
            name={entry.field}
            rows={3}
            maxLength={spec.maxLength}
            autocomplete={spec.autocomplete}
            required={entry.requirementType === "Required"}
            readOnly={prefilled}
            aria-describedby={describedBy}
            aria-invalid={invalid ? "true" : undefined}
          >
            {value}
          </textarea>
        ) : (
          <input
            id={entry.field}
            name={entry.field}
            // (one literal for the type checker: preact's input types are a union keyed on `type`)
            type={(spec.type ?? "text") as "text"}
            value={value}
            autocomplete={prefilled ? "off" : spec.autocomplete}
            inputmode={spec.inputmode}
            maxLength={spec.maxLength}
            spellcheck={spec.spellcheck}
            autocapitalize={spec.autocapitalize}
            required={entry.requirementType === "Required"}
            readOnly={prefilled}
            aria-describedby={describedBy}
            aria-invalid={invalid ? "true" : undefined}
          />
        )
      }
    />
  );
}
