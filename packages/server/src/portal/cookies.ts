// The portal's cookies (read and written through @fastify/cookie, registered for /portal only), all
// scoped to /portal, HttpOnly, SameSite=Lax, and Secure when the public base URL is https
// (docs/portal.md#sessions):
//   paylink_session   the session's random value (the database holds only its hash)
//   paylink_signin    a random value the sign-in form's token is bound to (login CSRF)
//   paylink_lang      the chosen language
import type { CookieSerializeOptions } from "@fastify/cookie";

export const SESSION_COOKIE = "paylink_session";
export const SIGNIN_COOKIE = "paylink_signin";
export const LANG_COOKIE = "paylink_lang";

/** The attributes of every portal cookie. Without maxAge: a browser-session cookie. */
export function portalCookie(publicBaseUrl: string, maxAgeSeconds?: number): CookieSerializeOptions {
  return {
    path: "/portal",
    httpOnly: true,
    sameSite: "lax",
    secure: publicBaseUrl.startsWith("https://"),
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}
