/** @jsxRuntime automatic @jsxImportSource preact */
// What the form says above its fields after an attempt: why the card was not charged, that the
// form or the price changed, or which fields need fixing.
import type { Messages } from "../i18n.ts";
import type { FieldErrorTexts } from "./field.tsx";

export type CheckoutAlert =
  | { kind: "declined"; reason: string }
  | { kind: "failed" }
  | { kind: "expired-form" }
  | { kind: "price-changed" };

export function AlertBox({ alert, m, tokenize }: { alert: CheckoutAlert; m: Messages; tokenize: boolean }) {
  switch (alert.kind) {
    case "declined": {
      // The processor's words only when the page's language has none of its own for them.
      const explained = m.declineReasons[alert.reason] ?? alert.reason;
      return (
        <div class="alert" role="alert" id="payment-alert">
          <h2>{tokenize ? m.declinedSaveTitle : m.declinedTitle}</h2>
          <p>
            {m.declineReasonLabel}: <strong>{explained}</strong>
          </p>
          <p>{m.declinedNotCharged}</p>
        </div>
      );
    }
    case "failed":
      return (
        <div class="alert" role="alert" id="payment-alert">
          <h2>{m.failedTitle}</h2>
          <p>{m.failedText}</p>
        </div>
      );
    case "expired-form":
    case "price-changed": {
      // Nothing went wrong with the card: an informational notice, then the form again.
      const [title, text] =
        alert.kind === "expired-form" ? [m.expiredFormTitle, m.expiredFormText] : [m.priceChangedTitle, m.priceChangedText];
      return (
        <div class="alert info" role="alert" id="payment-alert">
          <h2>{title}</h2>
          <p>{text}</p>
        </div>
      );
    }
  }
}

/** Every field error at the top, each a link to its field. */
export function ErrorSummary({ m, errors }: { m: Messages; errors: FieldErrorTexts }) {
  return (
    <div class="alert" role="alert" aria-labelledby="error-summary-title">
      <h2 id="error-summary-title">{m.errorSummaryTitle}</h2>
      <ul>
        {[...errors].map(([name, text]) => (
          <li>
            <a href={`#${name}`}>{text}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}
