// The portal's cookies, all scoped to /portal, HttpOnly, SameSite=Lax, and Secure when the public
// base URL is https (docs/portal.md#sessions):
//   paylink_session   the session's random value (the database holds only its hash)
//   paylink_signin    a random value the sign-in form's token is bound to (login CSRF)
//   paylink_lang      the chosen language
import type { FastifyReply, FastifyRequest } from "fastify";

export const SESSION_COOKIE = "paylink_session";
export const SIGNIN_COOKIE = "paylink_signin";
export const LANG_COOKIE = "paylink_lang";

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}

function attributes(publicBaseUrl: string): string {
  const secure = publicBaseUrl.startsWith("https://") ? "; Secure" : "";
  return `; Path=/portal; HttpOnly; SameSite=Lax${secure}`;
}

/** Adds a Set-Cookie header (a reply may set several). Without maxAge: a browser-session cookie. */
export function setCookie(reply: FastifyReply, publicBaseUrl: string, name: string, value: string, maxAgeSeconds?: number): void {
  const maxAge = maxAgeSeconds === undefined ? "" : `; Max-Age=${maxAgeSeconds}`;
  appendSetCookie(reply, `${name}=${value}${attributes(publicBaseUrl)}${maxAge}`);
}

export function clearCookie(reply: FastifyReply, publicBaseUrl: string, name: string): void {
  appendSetCookie(reply, `${name}=${attributes(publicBaseUrl)}; Max-Age=0`);
}

function appendSetCookie(reply: FastifyReply, cookie: string): void {
  const existing = reply.getHeader("set-cookie");
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)];
  reply.header("set-cookie", [...list, cookie]);
}
