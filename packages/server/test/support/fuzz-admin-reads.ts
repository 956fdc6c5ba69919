// The admin reads' fuzz generator: the per-merchant lists (terminals, apikeys, users, themes) asked
// with ids that name no merchant — among them near misses of a real one (letter case, an extra or
// missing character, padding, encodings) — and the theme edit (POST themes/{themeKey}) with broken
// bodies on the target theme, a theme key that is another merchant's, or none at all.
// test/admin/fuzz-reads.test.ts sends the cases and judges the answers.
import { alnum, junkId, percentEncode, type Random, randomString, utf8 } from "./fuzz.ts";
import {
  type AdminCase,
  adminAuth,
  type BodyEndpoint,
  LOGO_EDGES,
  LOGO_INVALID,
  NAME_EDGES,
  THEME_FIELDS,
  TINY_PNG,
} from "./fuzz-admin.ts";
import type { FieldSpec } from "./fuzz-json.ts";

export const MERCHANT_LISTS = ["terminals", "apikeys", "users", "themes"] as const;

export interface ReadsContext {
  /** The merchant whose objects the cases may reach. */
  merchantId: string;
  /** The theme the edit cases aim at, and the one edge values go to. */
  themeKey: string;
  scratchThemeKey: string;
  /** The target theme's own values: a case that turns out valid changes nothing. */
  themeName: string;
  themeColour: string;
  /** Another merchant, whose data no answer may hold. */
  otherMerchantId: string;
  otherThemeKey: string;
}

/** An id that names no merchant: a near miss of a real one, or junk. */
export function missedId(r: Random, real: string): { id: string; label: string } {
  const misses: Array<[string, string]> = [
    [real.toUpperCase(), "upper case"],
    [real.toLowerCase(), "lower case"],
    [real.slice(0, -1), "one character short"],
    [`${real}x`, "one character more"],
    [`${real}%20`, "a trailing space"],
    [`%20${real}`, "a leading space"],
    [`${real}%00`, "a NUL"],
    [real.replace(/_/, "%255F"), "an underscore encoded twice"],
    [`${real}%2F..`, "an encoded slash"],
    [`${real};x`, "a matrix parameter"],
    [`${real.slice(0, 4)}*`, "a wildcard"],
    [`${real.slice(0, 4)}%25`, "a LIKE wildcard"],
    [`${real}'--`, "a quote"],
  ];
  // A change of letter case leaves an id without letters of that case as it was: not a miss.
  const nearMisses = misses.filter(([id]) => id !== real);
  if (r.chance(0.6)) {
    const [id, label] = r.pick(nearMisses);
    return { id, label };
  }
  return { id: junkId(r, "mer_"), label: "junk" };
}

/** GET a per-merchant list with an id that is certainly not a merchant (sometimes with a query the route ignores). */
export function generateListCases(r: Random, ctx: ReadsContext, token: string, count: number): AdminCase[] {
  const cases: AdminCase[] = [];
  for (let i = 0; i < count; i++) {
    const list = r.pick(MERCHANT_LISTS);
    const auth = adminAuth(r, token);
    const { id, label } = missedId(r, r.chance(0.5) ? ctx.otherMerchantId : ctx.merchantId);
    const query = r.chance(0.3)
      ? `?${r.pick(["page=1", "pageSize=0", "merchantId=", "x=%zz"])}${r.chance(0.5) ? `&${alnum(r, 3)}=1` : ""}`
      : "";
    cases.push({
      label: `${auth.label}${label} id; GET ${list}`,
      method: "GET",
      path: `/admin/v1/merchants/${id}/${list}${query}`,
      headers: auth.headers,
      mayPass: false,
    });
  }
  return cases;
}

/** The real merchant's lists with queries they ignore: 200, holding only that merchant's data. */
export function generateOwnListCases(r: Random, ctx: ReadsContext, token: string, count: number): AdminCase[] {
  return Array.from({ length: count }, () => {
    const list = r.pick(MERCHANT_LISTS);
    const query = percentEncode(randomString(r)).slice(0, 100);
    return {
      label: `own ${list}; ?q=${query.slice(0, 40)}`,
      method: "GET" as const,
      path: `/admin/v1/merchants/${ctx.merchantId}/${list}?q=${query}`,
      headers: { authorization: `Bearer ${token}` },
      mayPass: true,
      edge: true,
    };
  });
}

const THEME_UPDATE_FIELDS: Record<string, FieldSpec> = { ...THEME_FIELDS, name: { ...THEME_FIELDS.name!, required: false } };

/** POST /admin/v1/merchants/{id}/themes/{themeKey}: the target theme, its own values as the base. */
export function themeUpdateEndpoint(ctx: ReadsContext): BodyEndpoint {
  return {
    title: "POST /admin/v1/merchants/{id}/themes/{themeKey} (update)",
    fields: THEME_UPDATE_FIELDS,
    base: (r) => {
      const body: Record<string, unknown> = {};
      if (r.chance(0.6)) body.name = ctx.themeName;
      if (r.chance(0.5)) body.primaryColor = ctx.themeColour;
      return body;
    },
    path: (r) => {
      const merchantReal = r.chance(0.85);
      const merchant = merchantReal ? ctx.merchantId : r.pick([ctx.otherMerchantId, missedId(r, ctx.merchantId).id]);
      const theme = r.pick([...Array(6).fill(ctx.themeKey), ctx.otherThemeKey, missedId(r, ctx.themeKey).id, junkId(r, "thm_")]) as string;
      return { path: `/admin/v1/merchants/${merchant}/themes/${theme}`, junk: !merchantReal || theme !== ctx.themeKey };
    },
    edges: { name: NAME_EDGES, logoUrl: [...LOGO_EDGES, TINY_PNG], primaryColor: ["#ABCDEF", "#000000"] },
    edgePath: () => ({ path: `/admin/v1/merchants/${ctx.merchantId}/themes/${ctx.scratchThemeKey}`, junk: false }),
  };
}

/** The other merchant's theme under its own merchant, edited with valid bodies and a wrong admin token. */
export function generateWrongTokenThemeCases(r: Random, ctx: ReadsContext, token: string, count: number): AdminCase[] {
  const cases: AdminCase[] = [];
  while (cases.length < count) {
    const auth = adminAuth(r, token);
    if (auth.ok) continue;
    const body = { name: "Taken over", primaryColor: "#ff0000", logoUrl: r.pick(LOGO_INVALID) };
    cases.push({
      label: `${auth.label}other merchant's theme`,
      method: "POST",
      path: `/admin/v1/merchants/${ctx.otherMerchantId}/themes/${ctx.otherThemeKey}`,
      headers: auth.headers,
      body: utf8(JSON.stringify(r.chance(0.5) ? body : { name: "Taken over" })),
      contentType: "application/json",
      mayPass: false,
    });
  }
  return cases;
}
