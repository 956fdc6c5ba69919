// A portal user's authenticator app in tests: the codes it shows for a secret, and enrolment
// through the account page as a person does it.
import assert from "node:assert/strict";
import { Secret, TOTP } from "otpauth";
import type { PortalClient } from "./portal.ts";

/** The code an authenticator app shows for this secret, `stepsAhead` steps from now. */
export function codeFor(secret: string, stepsAhead = 0): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), digits: 6, period: 30, timestamp: Date.now() + stepsAhead * 30_000 });
}

/** Enrols the signed-in client's user; returns the secret and the recovery codes as the pages showed them. */
export async function enrol(client: PortalClient): Promise<{ secret: string; codes: string[]; used: string }> {
  const start = await client.get("/portal/account/two-factor");
  const started = await client.post("/portal/account/two-factor/start", {}, start);
  assert.equal(started.status, 303);
  const page = await client.get("/portal/account/two-factor");
  const secret = /data-totp-secret[^>]*>([A-Z2-7 ]+)</.exec(page.html)![1]!.replaceAll(" ", "");
  const used = codeFor(secret);
  const confirmed = await client.post("/portal/account/two-factor/confirm", { code: used }, page);
  assert.equal(confirmed.status, 303, confirmed.text.slice(0, 300));
  const shown = await client.get(confirmed.location!);
  const codes = [...shown.html.matchAll(/<li>([a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4})<\/li>/g)].map((m) => m[1]!);
  return { secret, codes, used };
}
