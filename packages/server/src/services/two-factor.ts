// Two-factor sign-in of a portal user (docs/portal.md#two-factor-sign-in): enrol (a new secret,
// sealed under the keyring, waiting for its first code), confirm (the first code turns it on and
// makes ten recovery codes, stored hashed), check a code at sign-in (a TOTP code at most once,
// or an unused recovery code), and turn it off. The secret is never logged or stored in clear.

import type { Database } from "../db/connect.ts";
import {
  acceptTotpStep,
  disableTotp,
  enableTotp,
  hashRecoveryCode,
  readTotp,
  setPendingTotp,
  useRecoveryCode,
} from "../db/portal-users-repository.ts";
import type { Actor } from "../domain/audit/actor.ts";
import {
  formatRecoveryCode,
  newTotpSecret,
  normaliseRecoveryCode,
  RECOVERY_CODE_ALPHABET,
  RECOVERY_CODE_COUNT,
  totpStep,
} from "../domain/portal/totp.ts";
import { randomString } from "../ids.ts";
import { type SecretKeyring, totpSecretContext } from "../security/keyring.ts";
import { changeAndRecord } from "./audit.ts";

interface Deps {
  db: Database;
  keyring: SecretKeyring;
  now: () => Date;
}

/** The user's secret in clear, for the enrolment page and code checks; null when none is set. */
/** Whose audit entry a change writes: the merchant and the person. */
export interface AuditAt {
  merchantId: string;
  actor: Actor;
}

export async function readTotpSecret(deps: Deps, userId: string): Promise<{ secret: string | null; enabled: boolean }> {
  const state = await readTotp(deps.db, userId);
  const secret = state.sealedSecret === null ? null : deps.keyring.decrypt(state.sealedSecret, totpSecretContext(userId));
  return { secret, enabled: state.enabled };
}

/** Starts (or starts again) enrolment with a new secret; an enabled secret is never replaced. */
export async function startTwoFactorEnrolment(deps: Deps, userId: string): Promise<void> {
  await setPendingTotp(deps.db, userId, deps.keyring.encrypt(newTotpSecret(), totpSecretContext(userId)));
}

/**
 * The first code turns two-factor sign-in on; returns the ten recovery codes to show once, or
 * null when the code is wrong (or already used, or enrolment was not started).
 */
export async function confirmTwoFactor(deps: Deps, userId: string, code: string, who: AuditAt): Promise<string[] | null> {
  const { secret, enabled } = await readTotpSecret(deps, userId);
  if (secret === null || enabled) return null;
  const now = deps.now();
  const step = totpStep(secret, code, now);
  if (step === null || !(await acceptTotpStep(deps.db, userId, step))) return null;
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => formatRecoveryCode(randomString(16, RECOVERY_CODE_ALPHABET)));
  await changeAndRecord(
    deps.db,
    (trx) => enableTotp(trx, userId, now, codes.map(hashRecoveryCode)),
    () => ({ merchantId: who.merchantId, actor: who.actor, action: "user.two-factor-enable", object: { type: "user", id: userId } }),
  );
  return codes;
}

/**
 * Whether `typed` is the second factor of this user now: a current TOTP code not used before, or
 * an unused recovery code (used up by this call).
 */
export async function checkSecondFactor(deps: Deps, userId: string, typed: string): Promise<boolean> {
  const { secret, enabled } = await readTotpSecret(deps, userId);
  if (secret === null || !enabled) return false;
  const now = deps.now();
  const step = totpStep(secret, typed, now);
  if (step !== null) return acceptTotpStep(deps.db, userId, step);
  const recovery = normaliseRecoveryCode(typed);
  return recovery !== null && useRecoveryCode(deps.db, userId, recovery, now);
}

/** Turns two-factor sign-in off when `typed` is a valid second factor; false (nothing changed) otherwise. */
export async function disableTwoFactor(deps: Deps, userId: string, typed: string, who: AuditAt): Promise<boolean> {
  if (!(await checkSecondFactor(deps, userId, typed))) return false;
  await changeAndRecord(
    deps.db,
    (trx) => disableTotp(trx, userId),
    () => ({ merchantId: who.merchantId, actor: who.actor, action: "user.two-factor-disable", object: { type: "user", id: userId } }),
  );
  return true;
}
