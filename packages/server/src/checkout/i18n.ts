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
  const cookie = readCookie(request.headers.cookie, LANG_COOKIE);
  return isLang(cookie) ? cookie : undefined;
}

export function rememberLang(reply: FastifyReply, lang: Lang, publicBaseUrl: string) {
  const secure = publicBaseUrl.startsWith("https://") ? "; Secure" : "";
  reply.header("set-cookie", `${LANG_COOKIE}=${lang}; Path=/pay; Max-Age=31536000; SameSite=Lax; HttpOnly${secure}`);
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}
