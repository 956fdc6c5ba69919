// The portal's texts and which language a page speaks, like the checkout: ?lang= (the switch link),
// then the remembered choice (a cookie), then the browser's Accept-Language. Money, numbers and
// dates are formatted by web/i18n.ts, so a sum reads the same on both.
import type { FastifyReply, FastifyRequest } from "fastify";
import { acceptLanguage, isLang, type Lang } from "../web/i18n.ts";
import { LANG_COOKIE, portalCookie } from "./cookies.ts";
import { en, type Messages } from "./i18n/en.ts";
import { is } from "./i18n/is.ts";

export type { Messages } from "./i18n/en.ts";

export const PORTAL_MESSAGES: Record<Lang, Messages> = { is, en };

/** The page's language; a ?lang= choice is remembered for the next pages. */
export function portalLang(request: FastifyRequest, reply: FastifyReply, publicBaseUrl: string): Lang {
  const query = request.query;
  const asked = typeof query === "object" && query !== null && "lang" in query ? query.lang : undefined;
  if (isLang(asked)) {
    reply.setCookie(LANG_COOKIE, asked, portalCookie(publicBaseUrl, 365 * 24 * 60 * 60));
    return asked;
  }
  const remembered = request.cookies[LANG_COOKIE];
  return isLang(remembered) ? remembered : acceptLanguage(request);
}
