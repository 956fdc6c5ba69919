/** @jsxRuntime automatic @jsxImportSource preact */
// "Card details": number, expiry, security code and the optional name on the card. The code is
// never shown again; the number only in the answer to the post whose fields were wrong (form.ts).
// The attributes let a phone show a number pad and a browser fill the card in; the form is
// `novalidate`, so every message still comes from the server, in the page's language.
import { CARD_HOLDER_MAX_LENGTH, type RedisplayValues } from "../form.ts";
import type { Messages } from "../i18n.ts";
import { Field, type FieldErrorTexts } from "./field.tsx";

export function CardFields({ m, values, errors }: { m: Messages; values: RedisplayValues; errors: FieldErrorTexts }) {
  return (
    <fieldset>
      <legend>{m.cardDetails}</legend>
      <Field
        name="cardNumber"
        label={m.cardNumber}
        error={errors.get("cardNumber")}
        input={(describedBy, invalid) => (
          <input
            id="cardNumber"
            name="cardNumber"
            type="text"
            inputmode="numeric"
            autocomplete="cc-number"
            maxLength={23}
            pattern="[0-9 \-]{12,23}"
            spellcheck={false}
            autocapitalize="off"
            required
            value={values.cardNumber ?? ""}
            placeholder="1234 1234 1234 1234"
            aria-describedby={describedBy}
            aria-invalid={invalid ? "true" : undefined}
          />
        )}
      />
      <div class="pair">
        <Field
          name="cardExpiry"
          label={m.cardExpiry}
          error={errors.get("cardExpiry")}
          hint={m.cardExpiryHint}
          input={(describedBy, invalid) => (
            <input
              id="cardExpiry"
              name="cardExpiry"
              type="text"
              inputmode="numeric"
              autocomplete="cc-exp"
              maxLength={7}
              required
              value={values.cardExpiry ?? ""}
              aria-describedby={describedBy}
              aria-invalid={invalid ? "true" : undefined}
            />
          )}
        />
        <Field
          name="cardCvc"
          label={m.cardCvc}
          error={errors.get("cardCvc")}
          hint={m.cardCvcHint}
          input={(describedBy, invalid) => (
            <input
              id="cardCvc"
              name="cardCvc"
              type="text"
              inputmode="numeric"
              autocomplete="cc-csc"
              maxLength={4}
              pattern="[0-9]{3,4}"
              required
              aria-describedby={describedBy}
              aria-invalid={invalid ? "true" : undefined}
            />
          )}
        />
      </div>
      <Field
        name="cardHolder"
        label={m.cardHolder}
        error={errors.get("cardHolder")}
        optional={m.optional}
        input={(describedBy, invalid) => (
          <input
            id="cardHolder"
            name="cardHolder"
            type="text"
            autocomplete="cc-name"
            maxLength={CARD_HOLDER_MAX_LENGTH}
            spellcheck={false}
            autocapitalize="words"
            value={values.cardHolder ?? ""}
            aria-describedby={describedBy}
            aria-invalid={invalid ? "true" : undefined}
          />
        )}
      />
    </fieldset>
  );
}
