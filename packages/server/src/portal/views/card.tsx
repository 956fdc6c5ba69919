/** @jsxRuntime automatic @jsxImportSource preact */
// How the portal names a card and a decline to a person: "Visa •••• 1111" rather than the
// processor's "VI 411111******1111", and the processor's reason in the page's language.
import { cardDisplayName } from "../../payments/cards.ts";
import type { Lang } from "../../web/i18n.ts";
import { PORTAL_MESSAGES } from "../i18n.ts";

/** "Visa •••• 1111"; the masked number's last four digits are the card's. */
export function cardName(brand: string | null, masked: string | null): string | null {
  return masked ? cardDisplayName(brand, masked.slice(-4)) : null;
}

/** A processor's decline reason in the portal's language; one it has no words for is shown as given. */
export function declineReasonText(lang: Lang, reason: string): string {
  return PORTAL_MESSAGES[lang].payments.declineReasons[reason] ?? reason;
}
