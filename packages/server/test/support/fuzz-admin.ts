// The admin API fuzz generator: per POST endpoint a field spec, a valid base body and edge values
// only code after the schema check judges; rotate / enable / disable / resend with ids that name
// nothing; an admin token that is sometimes wrong. test/admin/fuzz.test.ts sends the cases and
// judges the answers.
import { alnum, junkId, type Random, randomString, randomValue, utf8 } from "./fuzz.ts";
import { type Body, breakBody, type FieldSpec, noise, type RawCase, rawJsonCase } from "./fuzz-json.ts";

export const CURRENCIES_INVALID = [
  [],
  ["XYZ"],
  ["EU"],
  ["EURO"],
  ["12$"],
  ["€€€"],
  ["ISK", "xx"],
  ["ISK", 5],
  [null],
  [["ISK"]],
  [{}],
  ["I\u0000K"],
  Array(201).fill("EUR"),
];
export const LOGO_INVALID = [
  "not a url",
  "data:",
  "data:,",
  "data:image/png;base64,!!!",
  "data:image/png;base64,AAAA",
  "data:image/png,%89PNG",
  "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=",
  "data:text/html;base64,PGgxPmhpPC9oMT4=",
  `data:image/png;base64,${"A".repeat(90_000)}`,
  "ftp://example.com/logo.png",
  "http://example.com/logo.png",
  "javascript:alert(1)",
  "//example.com/logo.png",
  "/logo.png",
  "file:///etc/passwd",
  "https://user:secret@example.com/logo.png",
];
export const WEBHOOK_URL_INVALID = [
  "http://shop.example/hook",
  "https://127.0.0.1/hook",
  "https://localhost/hook",
  "https://169.254.169.254/latest/meta-data",
  "https://[::1]/",
  "https://[::ffff:10.0.0.1]/",
  "https://[64:ff9b::a9fe:a9fe]/",
  "https://10.1.2.3/",
  "https://printer.local/",
  "https://db.internal/",
  "https://user:pw@shop.example/hook",
  "https://shop.example/hook#frag",
  "javascript:alert(1)",
  "shop.example",
  "",
  "   ",
  "ftp://shop.example/",
  "https://",
  "data:text/plain,hi",
];
export const WEBHOOK_API_KEY_INVALID = ["", " ", " lead", "trail ", "two  spaces", "tab\tkey", "line\nbreak", "ünicode", "k".repeat(513)];

export const MERCHANT_FIELDS: Record<string, FieldSpec> = {
  name: { kind: "string", required: true, maxLength: 200, invalid: ["", "   ", "\t\n "] },
};
export const TERMINAL_FIELDS: Record<string, FieldSpec> = {
  name: { kind: "string", maxLength: 200 },
  currencies: { kind: "array", invalid: CURRENCIES_INVALID },
};
export const API_KEY_FIELDS: Record<string, FieldSpec> = { name: { kind: "string", maxLength: 200 } };
export const USER_FIELDS: Record<string, FieldSpec> = {
  email: {
    kind: "string",
    required: true,
    maxLength: 254,
    invalid: ["", "ab", "no-at-sign.example", "two@@example.is", "a b@example.is", "jón@", "@example.is", "x@y", "anna@example"],
  },
  password: { kind: "string", required: true, maxLength: 1000, invalid: ["", "short", "123456789", "         "] },
};
export const THEME_FIELDS: Record<string, FieldSpec> = {
  name: { kind: "string", required: true, maxLength: 100, invalid: ["", "  "] },
  primaryColor: { kind: "string", invalid: ["red", "#12345", "#1234567", "#GGGGGG", "123456", "", "#12345g", "#abcdef "] },
  // Never an https URL that could be downloaded: there is no network here.
  logoUrl: { kind: "string", maxLength: 100_000, invalid: LOGO_INVALID },
};
export const WEBHOOK_FIELDS: Record<string, FieldSpec> = {
  url: { kind: "string", required: true, maxLength: 2048, invalid: WEBHOOK_URL_INVALID },
  apiKey: { kind: "string", maxLength: 512, invalid: WEBHOOK_API_KEY_INVALID },
};
export const WEBHOOK_UPDATE_FIELDS: Record<string, FieldSpec> = {
  url: { kind: "string", maxLength: 2048, invalid: WEBHOOK_URL_INVALID },
  apiKey: { kind: "string", maxLength: 512, invalid: WEBHOOK_API_KEY_INVALID },
};

/** A 1×1 PNG as a data: URL (only its magic bytes matter to Paylink). */
export const TINY_PNG = `data:image/png;base64,${Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]).toString("base64")}`;

export interface Context {
  merchantId: string;
  webhookId: string;
  /** A second endpoint, for update cases that may be valid. */
  scratchWebhookId: string;
}

export interface AdminCase {
  label: string;
  method: "POST" | "GET";
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  contentType?: string | null;
  mayPass: boolean;
  /** An edge-value case (counted apart from the malformed ones). */
  edge?: boolean;
}

export interface BodyEndpoint {
  title: string;
  /** The table a 200 adds one row to. */
  table?: string;
  fields: Record<string, FieldSpec>;
  base(r: Random, index: number): Body;
  path(r: Random, ctx: Context): { path: string; junk: boolean };
  /** Edge values per field (see NAME_EDGES). */
  edges: Record<string, readonly unknown[]>;
  /** Where edge cases go, when not to `path` (the update: a scratch endpoint, so the target stays as it was). */
  edgePath?(r: Random, ctx: Context): { path: string; junk: boolean };
}

/** The real merchant (mostly), or an id that names none. */
export function merchantSegment(r: Random, ctx: Context, realShare = 0.9): { id: string; junk: boolean } {
  return r.chance(realShare) ? { id: ctx.merchantId, junk: false } : { id: junkId(r, "mer_"), junk: true };
}

export function merchantPath(suffix: string) {
  return (r: Random, ctx: Context) => {
    const merchant = merchantSegment(r, ctx);
    return { path: `/admin/v1/merchants/${merchant.id}/${suffix}`, junk: merchant.junk };
  };
}

// Edge values, valid or not, that only code after the schema check judges (names that trim to
// nothing, currency codes that upper-case to a known one, duplicate e-mails, logo and webhook URLs
// the SSRF guard refuses). Each is sent alone in an otherwise valid body, so it reaches that code;
// a 200 is allowed. No logo URL names a host that would need the network.
export const NAME_EDGES = [
  "\u00a0",
  "\u3000",
  "\u200b",
  "\ufeff",
  "\u2028",
  " x ",
  "ｘ",
  "🧶",
  "n".repeat(200),
  "é".repeat(200),
  "🔥".repeat(100),
  "<b>&amp;</b>",
  "Robert'); DROP TABLE merchants;--",
];
export const magic = (type: string, bytes: number[]) => `data:image/${type};base64,${Buffer.from(bytes).toString("base64")}`;
export const LOGO_EDGES = [
  "",
  "   ",
  magic("gif", [0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0]),
  magic("jpeg", [0xff, 0xd8, 0xff, 0xe0]),
  magic("webp", [0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x45, 0x42, 0x50]),
  magic("png", [0xff, 0xd8, 0xff, 0xe0]),
  "data:image/png;base64,",
  "data:image/png;base64,iVBORw0KGgo=",
  "data:IMAGE/PNG;base64,iVBORw0KGgo=",
  "data:image/png;base64,iVBORw0KGgo===",
  "https://127.0.0.1/logo.png",
  "https://[::1]/logo.png",
  "https://0/logo.png",
  "https://2130706433/logo.png",
  "https://0x7f.1/logo.png",
  "https://localhost/logo.png",
  "https://10.0.0.1/logo.png",
  "https://169.254.169.254/latest/meta-data",
  "https://[::ffff:127.0.0.1]/logo.png",
  "https://[64:ff9b::a9fe:a9fe]/logo.png",
  "https://[fe80::1%25eth0]/logo.png",
  "HTTPS://127.0.0.1/logo.png",
  "https://127.0.0.1:99999/logo.png",
  "https:\\\\127.0.0.1\\logo.png",
];
export const WEBHOOK_URL_EDGES = [
  "https://exämple.com/hook",
  "https://xn--/hook",
  "https://0/",
  "https://2130706433/",
  "https://0x7f.1/",
  "https://[::]/",
  "https://[fe80::1%25eth0]/",
  "https://a..b/",
  "https://shop.example:0/",
  "https://shop.example:65535/",
  "https://shop.example:65536/",
  `https://shop.example/${"p".repeat(2000)}`,
  "HTTPS://SHOP.EXAMPLE/",
  "https:shop.example/x",
  "https:\\\\shop.example\\hook",
  " https://shop.example/padded ",
  "https://shop.example?#",
  "https://shop.example/%00",
  "https://%00/",
  "https://shop.example/\u0000",
  "https://shop.example/\ud800",
  "https://🧶.example/",
];
export const WEBHOOK_API_KEY_EDGES = ["a", `Bearer ${"x".repeat(505)}`, "~!@#$%^&*()", "Bearer a b c", "Bearer\u00a0x"];

/** The webhook endpoint the update, rotate, enable and disable cases aim at. */
export const TARGET_WEBHOOK = { url: "https://shop.example/hooks/fuzz-target", apiKey: "Bearer fuzz-target-key" };

export const BODY_ENDPOINTS: BodyEndpoint[] = [
  {
    title: "POST /admin/v1/merchants",
    table: "merchants",
    fields: MERCHANT_FIELDS,
    base: (r) => ({ name: r.chance(0.5) ? `Fuzz merchant ${alnum(r, 6)}` : randomString(r).trim() || "Fuzz" }),
    path: () => ({ path: "/admin/v1/merchants", junk: false }),
    edges: { name: NAME_EDGES },
  },
  {
    title: "POST /admin/v1/merchants/{id}/terminals",
    table: "terminals",
    fields: TERMINAL_FIELDS,
    base: (r) => {
      const body: Body = {};
      if (r.chance(0.7)) body.name = randomString(r).slice(0, 200);
      if (r.chance(0.7)) body.currencies = Array.from({ length: 1 + r.int(3) }, () => r.pick(["ISK", "EUR", "usd", "GBP"]));
      return body;
    },
    path: merchantPath("terminals"),
    edges: {
      name: NAME_EDGES,
      currencies: [
        ["isk"],
        ["ısk"],
        ["ıSK"],
        ["İSK"],
        ["ﬀx"],
        ["ßxx"],
        ["XAU"],
        ["XTS"],
        ["XXX"],
        ["ISK", "isk", "Isk"],
        Array(200).fill("EUR"),
      ],
    },
  },
  {
    title: "POST /admin/v1/merchants/{id}/apikeys",
    table: "api_keys",
    fields: API_KEY_FIELDS,
    base: (r) => (r.chance(0.7) ? { name: randomString(r).slice(0, 200) } : {}),
    path: merchantPath("apikeys"),
    edges: { name: NAME_EDGES },
  },
  {
    title: "POST /admin/v1/merchants/{id}/users",
    table: "portal_users",
    fields: USER_FIELDS,
    base: (r, index) => ({ email: `fuzz-${index}-${alnum(r, 6)}@example.is`, password: "correct horse battery staple" }),
    path: merchantPath("users"),
    edges: {
      email: [
        "edge.user@example.is",
        "EDGE.USER@EXAMPLE.IS",
        "jón@dæmi.is",
        "a@b.c",
        "\u0130@example.is",
        `x@y.${"z".repeat(240)}`,
        "a@b.c\u200b",
        '"quoted"@example.is',
        "a@[127.0.0.1]",
        " edge.user@example.is",
      ],
      password: ["          ", "p".repeat(1000), "🔥".repeat(5), "é".repeat(10)],
    },
  },
  {
    title: "POST /admin/v1/merchants/{id}/themes",
    table: "themes",
    fields: THEME_FIELDS,
    base: (r) => {
      const body: Body = { name: `Fuzz theme ${alnum(r, 4)}` };
      if (r.chance(0.6)) body.primaryColor = `#${r.int(0x1000000).toString(16).padStart(6, "0")}`;
      if (r.chance(0.5)) body.logoUrl = TINY_PNG;
      return body;
    },
    path: merchantPath("themes"),
    edges: { name: NAME_EDGES, logoUrl: LOGO_EDGES, primaryColor: ["#ABCDEF", "#000000"] },
  },
  {
    title: "POST /admin/v1/merchants/{id}/webhooks",
    table: "webhook_endpoints",
    fields: WEBHOOK_FIELDS,
    base: (r, index) => {
      const body: Body = { url: `https://shop.example/hooks/${index}` };
      if (r.chance(0.5)) body.apiKey = `Bearer ${alnum(r, 20)}`;
      return body;
    },
    path: merchantPath("webhooks"),
    edges: { url: WEBHOOK_URL_EDGES, apiKey: WEBHOOK_API_KEY_EDGES },
  },
  {
    title: "POST /admin/v1/merchants/{id}/webhooks/{webhookId} (update)",
    fields: WEBHOOK_UPDATE_FIELDS,
    // The target's own values: a case that turns out valid (a 200) changes nothing but updatedAt.
    base: (r) => {
      const body: Body = {};
      if (r.chance(0.6)) body.url = TARGET_WEBHOOK.url;
      if (r.chance(0.5)) body.apiKey = TARGET_WEBHOOK.apiKey;
      return body;
    },
    path: (r, ctx) => {
      const merchant = merchantSegment(r, ctx);
      const real = r.chance(0.85);
      return {
        path: `/admin/v1/merchants/${merchant.id}/webhooks/${real ? ctx.webhookId : junkId(r, "whk_")}`,
        junk: merchant.junk || !real,
      };
    },
    edges: { url: WEBHOOK_URL_EDGES, apiKey: WEBHOOK_API_KEY_EDGES },
    edgePath: (_r, ctx) => ({ path: `/admin/v1/merchants/${ctx.merchantId}/webhooks/${ctx.scratchWebhookId}`, junk: false }),
  },
];

export interface ActionEndpoint {
  title: string;
  path(r: Random, ctx: Context): string;
}

export const ACTION_ENDPOINTS: ActionEndpoint[] = [
  ...(["rotate", "enable", "disable"] as const).map((action) => ({
    title: `POST /admin/v1/merchants/{id}/webhooks/{junk id}/${action}`,
    path: (r: Random, ctx: Context) => `/admin/v1/merchants/${merchantSegment(r, ctx, 0.7).id}/webhooks/${junkId(r, "whk_")}/${action}`,
  })),
  {
    title: "POST /admin/v1/merchants/{id}/deliveries/{junk id}/resend",
    path: (r: Random, ctx: Context) => `/admin/v1/merchants/${merchantSegment(r, ctx, 0.7).id}/deliveries/${junkId(r, "msg_")}/resend`,
  },
];

/** The admin token (mostly), or one that is wrong in some way. */
export function adminAuth(r: Random, token: string): { headers: Record<string, string>; ok: boolean; label: string } {
  if (!r.chance(0.06)) return { headers: { authorization: `Bearer ${token}` }, ok: true, label: "" };
  const wrong = r.pick([
    null,
    "",
    "Bearer",
    "Bearer ",
    "Bearer wrong-token",
    `Bearer ${token}x`,
    `Bearer ${token.slice(1)}`,
    `Bearer ${token.toUpperCase()}`,
    `Basic ${Buffer.from(`admin:${token}`).toString("base64")}`,
    `Token ${token}`,
    `Bearer ${token} extra`,
    `Bearer tökén`,
    `${token}`,
  ]);
  return { headers: wrong === null ? {} : { authorization: wrong }, ok: false, label: `admin token ${JSON.stringify(wrong)}; ` };
}

/** `count` malformed requests, then `edgeCount` edge values. */
export function generateBodyCases(
  r: Random,
  endpoint: BodyEndpoint,
  ctx: Context,
  token: string,
  count: number,
  edgeCount: number,
): AdminCase[] {
  const bodyOptional = !Object.values(endpoint.fields).some((field) => field.required);
  const cases: AdminCase[] = [];
  for (let i = 0; i < count + edgeCount; i++) {
    const edge = i >= count;
    const { path, junk } = edge && endpoint.edgePath ? endpoint.edgePath(r, ctx) : endpoint.path(r, ctx);
    const auth = adminAuth(r, token);
    let raw: RawCase;
    if (edge) {
      const body = endpoint.base(r, i);
      const field = r.pick(Object.keys(endpoint.edges));
      body[field] = r.pick(endpoint.edges[field]!);
      raw = {
        label: `edge value ${field}=${JSON.stringify(body[field]).slice(0, 60)}`,
        body: utf8(JSON.stringify(body)),
        contentType: "application/json",
        mayPass: true,
      };
    } else if (r.chance(0.35)) {
      raw = rawJsonCase(r, JSON.stringify(endpoint.base(r, i)), endpoint.fields, bodyOptional);
    } else {
      const body = endpoint.base(r, i);
      const noiseCount = r.int(3);
      for (let n = 0; n < noiseCount; n++) noise(r, endpoint.fields, body);
      const broken = breakBody(r, endpoint.fields, body);
      raw = { label: broken.label, body: utf8(JSON.stringify(broken.value)), contentType: "application/json" };
    }
    cases.push({
      label: `${edge ? "edge; " : ""}${auth.label}${junk ? "junk id; " : ""}${raw.label}`,
      edge,
      method: "POST",
      path,
      headers: auth.headers,
      body: raw.body,
      contentType: raw.contentType,
      mayPass: (raw.mayPass ?? false) && auth.ok && !junk,
    });
  }
  return cases;
}

/** rotate / enable / disable / resend: the ids name nothing, the body (ignored by the route) is anything. */
export function generateActionCases(r: Random, endpoint: ActionEndpoint, ctx: Context, token: string, count: number): AdminCase[] {
  const cases: AdminCase[] = [];
  for (let i = 0; i < count; i++) {
    const path = endpoint.path(r, ctx);
    const auth = adminAuth(r, token);
    let raw: RawCase;
    switch (r.int(3)) {
      case 0:
        raw = { label: "no body" };
        break;
      case 1:
        raw = { label: "a JSON value", body: utf8(JSON.stringify(randomValue(r)) ?? "null"), contentType: "application/json" };
        break;
      default:
        raw = rawJsonCase(r, JSON.stringify({ url: "https://shop.example/x", enabled: true }), {}, true);
    }
    cases.push({
      label: `${auth.label}${path.slice(0, 120)}; ${raw.label}`,
      method: "POST",
      path,
      headers: auth.headers,
      body: raw.body,
      contentType: raw.contentType,
      mayPass: false,
    });
  }
  return cases;
}
