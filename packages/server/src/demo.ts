// First start on an empty database without an admin token: create a demo merchant so a new user
// can try everything at once (docs/admin-api.md#the-demo-merchant), in the portal too (docs/decisions.md
// docs/decisions.md#keys-passwords-sessions). The credentials exist in clear only in this printout.
import { sql } from "kysely";
import type { Database } from "./db/connect.ts";
import { countMerchants, createApiKey, createMerchant, createPortalUser, createTerminal, createTheme } from "./db/merchants-repository.ts";
import { randomString } from "./ids.ts";
import { hashPassword } from "./security/passwords.ts";

export interface DemoCredentials {
  merchantId: string;
  terminalIdentifier: string;
  apiKey: string;
  themeKey: string;
  portalEmail: string;
  portalPassword: string;
}

/** The demo's portal login; the password is random (and printed once), never a known default. */
export const DEMO_PORTAL_EMAIL = "demo@example.com";

/** Returns the new credentials, or undefined when the database already has merchants. */
export async function bootstrapDemo(db: Database): Promise<DemoCredentials | undefined> {
  if ((await countMerchants(db)) > 0) return undefined;
  // Hashed before the transaction: scrypt takes a while and no lock should wait for it.
  const portalPassword = randomString(16, "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789");
  const passwordHash = await hashPassword(portalPassword);
  // Instances starting together on one PostgreSQL must create one demo merchant, not several.
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${DEMO_LOCK_ID})`.execute(trx);
    if ((await countMerchants(trx)) > 0) return undefined;
    const { merchantId } = await createMerchant(trx, "Demo merchant");
    const terminal = await createTerminal(trx, merchantId, "Demo terminal", null);
    const { apiKey } = await createApiKey(trx, merchantId, "Demo key");
    const theme = await createTheme(trx, merchantId, { name: "Demo shop", primaryColor: "#0f766e", logoUrl: null });
    await createPortalUser(trx, merchantId, DEMO_PORTAL_EMAIL, passwordHash, "owner");
    return {
      merchantId,
      terminalIdentifier: terminal.terminalIdentifier,
      apiKey,
      themeKey: theme.themeKey,
      portalEmail: DEMO_PORTAL_EMAIL,
      portalPassword,
    };
  });
}

/** Names "the demo bootstrap" among PostgreSQL advisory locks. */
const DEMO_LOCK_ID = 727_561_002;

export function demoInstructions(demo: DemoCredentials, publicBaseUrl: string): string {
  const body = JSON.stringify({
    type: "PayByLink",
    terminalIdentifier: demo.terminalIdentifier,
    amount: 489000,
    currency: "ISK",
    items: [{ name: "Lopapeysa", quantity: 1, unitPrice: 489000, amountWithoutDiscount: 489000, amount: 489000 }],
    culture: "en",
    themeKey: demo.themeKey,
  });
  return [
    "",
    "  Paylink demo merchant created (shown once — keep these):",
    `    merchant id          ${demo.merchantId}`,
    `    terminalIdentifier   ${demo.terminalIdentifier}`,
    `    API key              ${demo.apiKey}`,
    `    theme key            ${demo.themeKey}`,
    "",
    `  Merchant portal: ${publicBaseUrl}/portal`,
    `    e-mail               ${demo.portalEmail}`,
    `    password             ${demo.portalPassword}`,
    "",
    "  Create a payment link:",
    `    curl -s ${publicBaseUrl}/api/v1/paymentlinks/create \\`,
    `      -H 'X-API-key: ${demo.apiKey}' -H 'Content-Type: application/json' \\`,
    `      -d '${body}'`,
    "",
    `  Then open the returned url in a browser and pay with card 4111 1111 1111 1111 (any future expiry, CVC 123).`,
    `  API reference: ${publicBaseUrl}/docs`,
    "",
  ].join("\n");
}
