/** @jsxRuntime automatic @jsxImportSource preact */
// The webhook endpoint form — URL, Authorization key, the Dispute opt-in, submit — for adding an
// endpoint (developers page) and for editing one (its own page).
import { Csrf } from "./layout.tsx";

export function WebhookForm(props: {
  action: string;
  csrf: string;
  /** Prefix of the inputs' ids: the two forms can share a page's id space. */
  idPrefix: string;
  urlLabel: string;
  /** The current URL when editing; a placeholder when adding. */
  url?: string;
  keyLabel: string;
  keyHint?: string;
  disputeLabel: string;
  disputeHint: string;
  /** Whether the endpoint takes Dispute events now; off for a new one. */
  disputeEvents?: boolean;
  button: string;
}) {
  const urlId = `${props.idPrefix}url`;
  const keyId = `${props.idPrefix}key`;
  const disputeId = `${props.idPrefix}disputes`;
  return (
    <form method="post" action={props.action}>
      <Csrf token={props.csrf} />
      <div class="row">
        <div class="field">
          <label for={urlId}>{props.urlLabel}</label>
          <input id={urlId} name="url" type="url" required {...(props.url ? { value: props.url } : { placeholder: "https://" })} />
        </div>
        <div class="field">
          <label for={keyId}>
            {props.keyLabel}
            {props.keyHint ? <span class="hint"> {props.keyHint}</span> : null}
          </label>
          <input id={keyId} name="apiKey" autocomplete="off" />
        </div>
        <div class="field">
          <button type="submit">{props.button}</button>
        </div>
      </div>
      <div class="field">
        <label>
          <input
            name="disputeEvents"
            type="checkbox"
            value="on"
            checked={props.disputeEvents ?? false}
            aria-describedby={`${disputeId}-hint`}
          />{" "}
          {props.disputeLabel}
        </label>
        <span class="hint" id={`${disputeId}-hint`}>
          {props.disputeHint}
        </span>
      </div>
    </form>
  );
}
