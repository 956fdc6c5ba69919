// Secrets the portal shows once — a new API key, a new endpoint's keys, a rotated or revealed HMAC
// key — made by a POST that answers with a redirect, as every portal POST does (a reload then
// repeats nothing). They ride to the page the POST redirects to in a cookie sealed under the
// keyring for this user and live two minutes, and that page clears the cookie as it shows them:
// reloading it shows them no more. Nothing of them is written to the database or a URL.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { SecretKeyring } from "../security/keyring.ts";
import { portalCookie } from "./cookies.ts";

export const SHOWN_ONCE_COOKIE = "paylink_once";
const LIFETIME_SECONDS = 120;

export type ShownOnce =
  | { kind: "api-key"; apiKey: string }
  | { kind: "webhook-keys"; why: "added" | "rotated" | "revealed"; webhookId: string; apiKey?: string; hmacKey: string }
  | { kind: "recovery-codes"; codes: string[] };

interface Deps {
  keyring: SecretKeyring;
  readonly publicBaseUrl: string;
}

const context = (userId: string) => `portal:shown-once:${userId}`;

/** Seals `value` into the cookie the next page shows it from. */
export function showOnce(deps: Deps, request: FastifyRequest, reply: FastifyReply, value: ShownOnce): void {
  const sealed = deps.keyring.encrypt(JSON.stringify(value), context(request.portal.session!.userId));
  reply.setCookie(SHOWN_ONCE_COOKIE, sealed, portalCookie(deps.publicBaseUrl, LIFETIME_SECONDS));
}

/** What the last POST left to show, now cleared; undefined when nothing (or another user's, or a forged cookie). */
export function takeShownOnce(deps: Deps, request: FastifyRequest, reply: FastifyReply): ShownOnce | undefined {
  const sealed = request.cookies[SHOWN_ONCE_COOKIE];
  if (!sealed) return undefined;
  reply.clearCookie(SHOWN_ONCE_COOKIE, portalCookie(deps.publicBaseUrl));
  try {
    return JSON.parse(deps.keyring.decrypt(sealed, context(request.portal.session!.userId))) as ShownOnce;
  } catch {
    return undefined;
  }
}
