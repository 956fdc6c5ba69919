// Domain values → the link JSON of Straumur's payment-links API. Nothing else builds link JSON, except
// the submissions of a link read, which its one statement builds (db/links-repository.ts).

import type { LinkSubmission, LinkSummaryRecord, PaymentLinkRecord } from "../db/links-repository.ts";
import { deriveStatus, linkStatus } from "../domain/links/status.ts";
import { linkUrl } from "../domain/links/url.ts";

export function presentLink(link: PaymentLinkRecord, submissions: LinkSubmission[], publicBaseUrl: string, now: Date) {
  const { terms } = link;
  return {
    terminalIdentifier: terms.terminalIdentifier,
    paymentLinkReference: link.reference,
    themeKey: terms.themeKey,
    description: terms.description,
    amount: terms.amount,
    currency: terms.currency,
    returnUrl: terms.returnUrl,
    status: linkStatus(link, now),
    culture: terms.culture,
    type: terms.type,
    url: linkUrl(publicBaseUrl, link.reference),
    createdAt: link.createdAt.toISOString(),
    validUntil: terms.validUntil?.toISOString() ?? null,
    recurringProcessingModel: terms.recurringProcessingModel,
    visitCount: link.visitCount,
    salesCount: link.salesCount,
    maxSalesCount: terms.maxSalesCount,
    items: terms.items,
    shopperInfo: terms.shopperInfo,
    // Already in their wire shape (db/links-repository.ts).
    submissions,
  };
}

export function presentLinkSummary(link: LinkSummaryRecord, publicBaseUrl: string, now: Date) {
  return {
    paymentLinkReference: link.reference,
    description: link.description,
    amount: link.amount,
    currency: link.currency,
    type: link.type,
    status: deriveStatus(link, now),
    url: linkUrl(publicBaseUrl, link.reference),
    createdAt: link.createdAt.toISOString(),
    validUntil: link.validUntil?.toISOString() ?? null,
    visitCount: link.visitCount,
    salesCount: link.salesCount,
    maxSalesCount: link.maxSalesCount,
  };
}
