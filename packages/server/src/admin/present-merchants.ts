// The wire shape of merchants and what hangs off them in /admin/v1: times as ISO 8601, never a
// secret (API keys show their prefix, users no password hash, processors their secrets masked).
import type { ApiKeySummary, MerchantSummary, PortalUserSummary } from "../db/merchant-reads-repository.ts";
import type { Terminal, Theme } from "../db/merchants-repository.ts";
import { type ProcessorView, processorWebhookUrl } from "../payments/processor-config.ts";

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

export function presentMerchant(merchant: MerchantSummary) {
  return { merchantId: merchant.merchantId, name: merchant.name, createdAt: iso(merchant.createdAt) };
}

/** A terminal with its processor (secrets masked) and the address its processor's notifications go to. */
export function presentTerminal(terminal: Terminal, processor: ProcessorView, publicBaseUrl: string) {
  return {
    terminalIdentifier: terminal.terminalIdentifier,
    name: terminal.name,
    currencies: terminal.currencies,
    processor,
    webhookUrl: processorWebhookUrl(publicBaseUrl, terminal.terminalIdentifier),
  };
}

export function presentApiKey(key: ApiKeySummary) {
  return {
    keyId: key.keyId,
    name: key.name,
    prefix: key.prefix,
    createdAt: iso(key.createdAt),
    lastUsedAt: iso(key.lastUsedAt),
    revokedAt: iso(key.revokedAt),
  };
}

export function presentUser(user: PortalUserSummary) {
  return { userId: user.userId, email: user.email, role: user.role, createdAt: iso(user.createdAt) };
}

export function presentTheme(theme: Theme) {
  return {
    themeKey: theme.themeKey,
    name: theme.name,
    primaryColor: theme.primaryColor,
    logoUrl: theme.logoUrl,
    hasLogo: theme.logoVersion !== null,
  };
}
