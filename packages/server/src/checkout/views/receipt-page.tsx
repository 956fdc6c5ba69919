/** @jsxRuntime automatic @jsxImportSource preact */
// The receipt: shown after a successful payment when the link has no returnUrl.
import type { SubmissionRecord } from "../../db/submissions-repository.ts";
import { cardDisplayName } from "../../payments/cards.ts";
import { formatDateTime, formatMoney, type Lang } from "../../web/i18n.ts";
import type { PageTheme } from "../../web/theme.ts";
import { MESSAGES } from "../i18n.ts";
import { MessagePage } from "./status-page.tsx";

export interface ReceiptPageProps {
  lang: Lang;
  nonce: string;
  theme: PageTheme;
  tokenize: boolean;
  submission: SubmissionRecord;
}

export function ReceiptPage({ lang, nonce, theme, tokenize, submission }: ReceiptPageProps) {
  const m = MESSAGES[lang];
  const card = cardDisplayName(submission.cardBrand, submission.cardLast4);
  return (
    <MessagePage
      lang={lang}
      nonce={nonce}
      theme={theme}
      icon="ok"
      title={tokenize ? m.receiptSavedTitle : m.receiptTitle}
      text={tokenize ? m.receiptSavedThanks(theme.name) : m.receiptThanks(theme.name)}
    >
      <dl class="receipt">
        <dt>{m.receiptReference}</dt>
        <dd class="ref" id="checkout-reference">
          {submission.checkoutReference}
        </dd>
        <dt>{m.receiptAmount}</dt>
        <dd id="receipt-amount">{formatMoney(submission.amount, submission.currency, lang)}</dd>
        <dt>{m.receiptCard}</dt>
        <dd id="receipt-card">{card}</dd>
        <dt>{m.receiptDate}</dt>
        <dd>{formatDateTime(submission.completedAt ?? submission.createdAt, lang)}</dd>
      </dl>
      <p class="muted">{m.receiptKeep}</p>
    </MessagePage>
  );
}
