// The checkout's texts and which language a page speaks: ?lang= (the switch link), then the
// remembered choice (a cookie), then the link's culture — or, on pages that belong to no link, the
// browser's Accept-Language. Every text a shopper can see is in i18n/, once per language.
import type { FastifyReply, FastifyRequest } from "fastify";
import { isLang, type Lang } from "../web/i18n.ts";
import { en, type Messages } from "./i18n/en.ts";
import { is } from "./i18n/is.ts";

export type { Messages } from "./i18n/en.ts";

export const MESSAGES: Record<Lang, Messages> = { is, en };

export type FieldProblem = keyof Messages["errors"];

const LANG_COOKIE = "paylink_lang";

/** ?lang= first (the switch link), then the remembered choice. */
export function requestedLang(request: FastifyRequest): Lang | undefined {
  const { query } = request;
  if (typeof query === "object" && query !== null && "lang" in query && isLang(query.lang)) return query.lang;
  // Parsed by @fastify/cookie inside the checkout and the portal; a URL the router refused before
  // reaching them has no cookies parsed.
  const cookie = request.cookies?.[LANG_COOKIE];
  return isLang(cookie) ? cookie : undefined;
}

/** `path`: /pay for links, /checkout for sessions. */
export function rememberLang(reply: FastifyReply, lang: Lang, publicBaseUrl: string, path: string) {
  const secure = publicBaseUrl.startsWith("https://");
  reply.setCookie(LANG_COOKIE, lang, { path, maxAge: 31_536_000, sameSite: "lax", httpOnly: true, secure });
}
