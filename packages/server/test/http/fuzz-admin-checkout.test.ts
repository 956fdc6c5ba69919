// "Bad input always gets a clear 4xx error in the documented format, never a 500 and never lost
// data", proved with generated input on every backend, beyond the JSON API (which
// test/api/errors-fuzz.test.ts covers):
//
//   1. /admin/v1: at least 300 generated requests to each POST endpoint (merchants, terminals,
//      apikeys, users, themes, webhooks, webhook update, and rotate / enable / disable / resend
//      with ids that exist nowhere) and to the delivery log's query string. Every answer is a 4xx
//      in the error envelope (SPEC §2.7) — or a 200 where the case is marked as possibly valid —
//      and afterwards each table holds its old rows plus exactly one per 200.
//   2. POST /pay/{reference} of a real active link: at least 300 generated form posts. Every
//      answer is an HTML page with 400/402/403/413/415/422, and afterwards the link has no sale and
//      no submission. No generated post is a valid card attempt: a post with a valid form token
//      always has a certainly-invalid card or shopper field; the others (junk, missing or foreign
//      token, cross-site headers, JSON / multipart / text bodies) may carry a valid card.
//   3. At least 200 junk paths under /pay/ and under /api/v1/paymentlinks/ each, sent as raw
//      bytes (dots, percent-encoded garbage, raw UTF-8 and non-UTF-8 bytes, control characters,
//      over-long segments): never a 5xx.
//
// Same generator toolkit as errors-fuzz (test/support/fuzz.ts): a seeded mulberry32 PRNG; each
// body case starts valid, may get "noise" changes that are valid or not, and ends with one change
// that is certainly invalid; a fraction are raw bytes below the JSON/form level. Requests go through node:http (and a raw
// socket for the paths), so the bytes on the wire are exactly the generated ones: fetch would
// normalise dot segments and re-encode the URL. Set FUZZ_SEED to explore other cases; FUZZ_CASES
// / FUZZ_PATH_CASES to send more per endpoint.
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { CARDS, cardFields, getPage, hiddenInputs, postForm, textOf } from "../support/checkout.ts";
import { testBackends } from "../support/databases.ts";
import { assertErrorShape, createLink, getLink, payByLink, simplePayByLink } from "../support/fixtures.ts";
import {
  inPool,
  type Kind,
  nested,
  PROTO_KEYS,
  Random,
  randomString,
  randomValue,
  UNSTORABLE_STRINGS,
  WEIRD_NUMBERS,
  WEIRD_STRINGS,
  WRONG_CONTENT_TYPES,
  wrongType,
} from "../support/fuzz.ts";
import { type ApiResponse, startTestServer, type TestServer } from "../support/harness.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_611);
const CASES = Math.max(300, Number(process.env.FUZZ_CASES ?? 300));
const PATH_CASES = Math.max(200, Number(process.env.FUZZ_PATH_CASES ?? 200));
const IN_FLIGHT = 8;

// ---------------------------------------------------------------------------------------------
// Ids and URL segments

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const alnum = (r: Random, length: number) => Array.from({ length }, () => r.pick([...ALNUM])).join("");

/** Percent-encodes the UTF-8 bytes of the text (a lone surrogate becomes U+FFFD), as a URL or form would. */
function percentEncode(text: string, spaceAsPlus = false): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) {
    if (
      (byte >= 0x30 && byte <= 0x39) ||
      (byte >= 0x41 && byte <= 0x5a) ||
      (byte >= 0x61 && byte <= 0x7a) ||
      [0x2d, 0x2e, 0x5f, 0x7e].includes(byte)
    )
      out += String.fromCharCode(byte);
    else if (spaceAsPlus && byte === 0x20) out += "+";
    else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** Percent sequences that do not decode, decode to bytes that are not UTF-8, or decode to NUL, "/", "..". */
const BROKEN_PERCENT = [
  "%",
  "%%",
  "%zz",
  "%4",
  "%E0%A4%A",
  "%ED%A0%80",
  "%C0%AF",
  "%FF%FE",
  "%F0%9F",
  "%C3%28",
  "%00",
  "a%00b",
  "%01",
  "%7F",
  "%2F",
  "%5C",
  "%2e%2e",
  "%252e",
  "%u0041",
];

/** An id (a URL segment, already encoded for the request line) that names nothing. */
function junkId(r: Random, prefix: string): string {
  switch (r.int(9)) {
    case 0:
      return `${prefix}${alnum(r, 16)}`;
    case 1:
      return alnum(r, 1 + r.int(64));
    case 2:
      return "a".repeat(65 + r.int(36)); // over the schemas' 64, within the router's 100
    case 3:
      return "b".repeat(101 + r.int(3000)); // over the router's parameter limit
    case 4:
      return r.pick(BROKEN_PERCENT) + (r.chance(0.5) ? alnum(r, 4) : "");
    case 5:
      return percentEncode(randomString(r)) || "%20";
    case 6:
      return r.pick([".", "..", "...", "a..b", ".%2e", "%2e", "~", "-", "_", "%2e%2e%2f"]);
    case 7:
      return r.pick(["", "%20", "+", "null", "undefined", "0", "-1", "__proto__", "constructor", "prototype"]);
    default:
      return Array.from({ length: 1 + r.int(4) }, () =>
        r.pick([alnum(r, 3), r.pick(BROKEN_PERCENT), percentEncode(r.pick(WEIRD_STRINGS))]),
      ).join("");
  }
}

// ---------------------------------------------------------------------------------------------
// HTTP: node:http sends the path and body bytes as given (fetch would normalise them)

const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT * 2 });

function toHeaders(raw: http.IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw))
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  return headers;
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

interface Reply extends ApiResponse {
  text: string;
}

function send(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: Buffer; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let settled = false;
    const request = http.request({ host: hostname, port, method, path, headers: options.headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", (error) => {
        if (!settled) {
          settled = true;
          reject(error);
        }
      });
      response.on("end", () => {
        settled = true;
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: response.statusCode ?? 0, headers: toHeaders(response.headers), body: parseBody(text), text });
      });
    });
    request.setTimeout(20_000, () => request.destroy(new Error("no answer within 20 s")));
    request.on("error", (error) => {
      if (!settled) {
        settled = true;
        reject(error);
      }
    });
    request.end(options.body);
  });
}

/** One request written byte for byte on a fresh socket (Connection: close); the answer parsed by hand. */
function sendRaw(baseUrl: string, requestBytes: Buffer): Promise<Reply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.setTimeout(20_000, () => socket.destroy(new Error("no answer within 20 s")));
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", (error) => (chunks.length > 0 ? finish() : reject(error)));
    socket.on("end", () => finish());
    socket.on("close", () => finish());
    socket.write(requestBytes);
    let done = false;
    function finish() {
      if (done) return;
      done = true;
      const all = Buffer.concat(chunks);
      const split = all.indexOf("\r\n\r\n");
      const head = (split === -1 ? all : all.subarray(0, split)).toString("latin1");
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      if (!status) return reject(new Error(`no HTTP answer: ${JSON.stringify(head.slice(0, 100))}`));
      const headers = new Headers();
      for (const line of head.split("\r\n").slice(1)) {
        const colon = line.indexOf(":");
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      let body: Buffer = split === -1 ? Buffer.alloc(0) : all.subarray(split + 4);
      if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) body = dechunk(body);
      const text = body.toString("utf8");
      resolve({ status: Number(status[1]), headers, body: parseBody(text), text });
    }
  });
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const eol = body.indexOf("\r\n", at);
    if (eol === -1) break;
    const size = parseInt(body.subarray(at, eol).toString("latin1"), 16);
    if (!size) break;
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

// ---------------------------------------------------------------------------------------------
// 1. Admin API: the bodies

type Body = Record<string, any>;

interface FieldSpec {
  kind: Kind;
  required?: boolean;
  /** The schema's maxLength of a string field. */
  maxLength?: number;
  /** Values of the right JSON type that break a rule of this field whatever else the body says. */
  invalid?: readonly unknown[];
}

const CURRENCIES_INVALID = [
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
const LOGO_INVALID = [
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
const WEBHOOK_URL_INVALID = [
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
const WEBHOOK_API_KEY_INVALID = ["", " ", " lead", "trail ", "two  spaces", "tab\tkey", "line\nbreak", "ünicode", "k".repeat(513)];

const MERCHANT_FIELDS: Record<string, FieldSpec> = {
  name: { kind: "string", required: true, maxLength: 200, invalid: ["", "   ", "\t\n "] },
};
const TERMINAL_FIELDS: Record<string, FieldSpec> = {
  name: { kind: "string", maxLength: 200 },
  currencies: { kind: "array", invalid: CURRENCIES_INVALID },
};
const API_KEY_FIELDS: Record<string, FieldSpec> = { name: { kind: "string", maxLength: 200 } };
const USER_FIELDS: Record<string, FieldSpec> = {
  email: {
    kind: "string",
    required: true,
    maxLength: 254,
    invalid: ["", "ab", "no-at-sign.example", "two@@example.is", "a b@example.is", "jón@", "@example.is", "x@y", "anna@example"],
  },
  password: { kind: "string", required: true, maxLength: 1000, invalid: ["", "short", "123456789", "         "] },
};
const THEME_FIELDS: Record<string, FieldSpec> = {
  name: { kind: "string", required: true, maxLength: 100, invalid: ["", "  "] },
  primaryColor: { kind: "string", invalid: ["red", "#12345", "#1234567", "#GGGGGG", "123456", "", "#12345g", "#abcdef "] },
  // Never an https URL that could be downloaded: there is no network here.
  logoUrl: { kind: "string", maxLength: 100_000, invalid: LOGO_INVALID },
};
const WEBHOOK_FIELDS: Record<string, FieldSpec> = {
  url: { kind: "string", required: true, maxLength: 2048, invalid: WEBHOOK_URL_INVALID },
  apiKey: { kind: "string", maxLength: 512, invalid: WEBHOOK_API_KEY_INVALID },
};
const WEBHOOK_UPDATE_FIELDS: Record<string, FieldSpec> = {
  url: { kind: "string", maxLength: 2048, invalid: WEBHOOK_URL_INVALID },
  apiKey: { kind: "string", maxLength: 512, invalid: WEBHOOK_API_KEY_INVALID },
};

/** A 1×1 PNG as a data: URL (only its magic bytes matter to Paylink). */
const TINY_PNG = `data:image/png;base64,${Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]).toString("base64")}`;

/** A change that may or may not be valid on its own. */
function noise(r: Random, fields: Record<string, FieldSpec>, body: Body): void {
  const names = Object.keys(fields);
  const strings = names.filter((n) => fields[n]!.kind === "string");
  switch (r.int(4)) {
    case 0: {
      const name = r.pick(names);
      if (!fields[name]!.required) delete body[name];
      break;
    }
    case 1:
      body[r.pick(names)] = randomValue(r);
      break;
    case 2:
      if (strings.length > 0) body[r.pick(strings)] = randomString(r);
      break;
    default:
      // Numbers as strings.
      if (strings.length > 0) body[r.pick(strings)] = String(r.pick(WEIRD_NUMBERS));
  }
}

/** A change that makes any body invalid, whatever it held before. */
function breakBody(r: Random, fields: Record<string, FieldSpec>, body: Body): { label: string; value: unknown } {
  const names = Object.keys(fields);
  const strings = names.filter((n) => fields[n]!.kind === "string");
  const required = names.filter((n) => fields[n]!.required);
  const withInvalid = names.filter((n) => fields[n]!.invalid);
  for (;;) {
    switch (r.int(9)) {
      case 0: {
        const name = r.pick(names);
        body[name] = wrongType(r, fields[name]!.kind);
        return { label: `wrong type at ${name}`, value: body };
      }
      case 1: {
        if (required.length === 0) continue;
        const name = r.pick(required);
        delete body[name];
        return { label: `missing ${name}`, value: body };
      }
      case 2: {
        let key = r.chance(0.4) ? r.pick(PROTO_KEYS) : randomString(r).slice(0, 30);
        if (key in fields) key = `${key}_extra`;
        // defineProperty, so that even "__proto__" becomes an own key that JSON.stringify sends.
        Object.defineProperty(body, key, { value: randomValue(r), enumerable: true, configurable: true, writable: true });
        return { label: `unknown field ${JSON.stringify(key.slice(0, 20))}`, value: body };
      }
      case 3: {
        if (withInvalid.length === 0) continue;
        const name = r.pick(withInvalid);
        body[name] = r.pick(fields[name]!.invalid!);
        return { label: `invalid value at ${name}`, value: body };
      }
      case 4: {
        const name = r.pick(strings);
        body[name] = r.pick(UNSTORABLE_STRINGS);
        return { label: `unstorable text at ${name}`, value: body };
      }
      case 5: {
        const name = r.chance(0.8) ? r.pick(names) : "deep";
        body[name] = nested(r, 40 + r.int(400), randomValue(r, 0));
        return { label: `deep nesting at ${name}`, value: body };
      }
      case 6: {
        const name = r.pick(strings.filter((n) => fields[n]!.maxLength));
        const max = fields[name]!.maxLength!;
        body[name] = r.pick(["x", "é", "🔥"]).repeat(max + 1 + r.int(r.chance(0.1) ? 200_000 : 50));
        return { label: `huge string at ${name}`, value: body };
      }
      case 7:
        return r.chance(0.5)
          ? { label: "array for the object", value: [body] }
          : { label: "array of arrays for the object", value: [[body], {}] };
      default: {
        // Numbers where text belongs, text where a list belongs.
        const name = r.pick(names);
        body[name] = fields[name]!.kind === "string" ? r.pick([48900, 0, -1, 1.5, 1e21]) : r.pick(["ISK", "ISK,EUR", '["ISK"]']);
        return { label: `scalar of the wrong kind at ${name}`, value: body };
      }
    }
  }
}

interface RawCase {
  label: string;
  body?: Buffer;
  contentType?: string | null;
  /** The request may be a valid one (where the endpoint takes it). */
  mayPass?: boolean;
}

const text = (value: string) => Buffer.from(value, "utf8");

/** A request broken below the JSON level: bytes, syntax, media type, size. */
function rawJsonCase(r: Random, valid: string, fields: Record<string, FieldSpec>, bodyOptional: boolean): RawCase {
  const json = "application/json";
  switch (r.int(13)) {
    case 0:
      return { label: "truncated JSON", body: text(valid.slice(0, r.int(valid.length))), contentType: json };
    case 1: {
      const broken = r.pick([
        "{",
        "}",
        "[",
        "{'name': 'x'}",
        '{"name": "x",}',
        "{name: 1}",
        '{"a": NaN}',
        '{"a": Infinity}',
        '{"a": 0x10}',
        "/* c */ {}",
        '{"a":1}}',
        '{"a":1} {"b":2}',
        "undefined",
        '{"a":"\\x41"}',
        '{"a":"unterminated}',
        `${valid},`,
        valid.includes('"') ? valid.replace(/"/, "'") : "{'a':1}",
        `\ufeff${valid.replace(/\}$/, ",}")}`,
      ]);
      return { label: `invalid JSON ${JSON.stringify(broken.slice(0, 30))}`, body: text(broken), contentType: json };
    }
    case 2: {
      const bytes = Buffer.alloc(1 + r.int(300));
      for (let i = 0; i < bytes.length; i++) bytes[i] = r.int(256);
      return { label: "random bytes as JSON", body: bytes, contentType: json };
    }
    case 3:
      return { label: "body without a content type", body: text(valid), contentType: null };
    case 4: {
      const contentType = r.pick(WRONG_CONTENT_TYPES);
      return {
        label: `content type ${contentType}`,
        body: text(contentType.includes("form") ? "name=x&url=https%3A%2F%2Fshop.example%2F" : valid),
        contentType,
      };
    }
    case 5: {
      const poison = r.pick(['"__proto__": {"isAdmin": true}', '"__proto__": null', '"constructor": {"prototype": {"polluted": 1}}']);
      return { label: `prototype pollution ${poison.slice(0, 20)}`, body: text(valid.replace(/^\{/, `{${poison},`)), contentType: json };
    }
    case 6: {
      const top = r.pick(["[]", "[{}]", "0", "-1", '"x"', "true", "false", "null", `[${valid}]`, "1e999", `"${"x".repeat(5000)}"`]);
      return { label: `top-level ${top.slice(0, 20)}`, body: text(top), contentType: json, mayPass: top === "null" && bodyOptional };
    }
    case 7: {
      if (r.chance(0.15))
        return { label: "body over 1 MiB", body: text(`{"name":"${"x".repeat(1024 * 1024 + r.int(1000))}"}`), contentType: json };
      const contentType = r.pick([json, null]);
      return {
        label: `empty body, content type ${contentType}`,
        body: Buffer.alloc(0),
        contentType,
        mayPass: contentType === null && bodyOptional,
      };
    }
    case 8: {
      const names = Object.keys(fields);
      if (names.length === 0) return { label: "duplicate key", body: text('{"a":1,"a":2,}'), contentType: json };
      const key = r.pick(names);
      const last = JSON.stringify(wrongType(r, fields[key]!.kind));
      return { label: `duplicate key ${key}`, body: text(valid.replace(/\}$/, `,${JSON.stringify(key)}:${last}}`)), contentType: json };
    }
    case 9: {
      // An unescaped control character inside a JSON string is not JSON (outside a string, only
      // white space is allowed: NUL and its kin are not).
      const at = valid.indexOf('"') + 1;
      const raw = at > 0 ? r.pick(["\u0000", "\u0001", "\n", "\u001f"]) : r.pick(["\u0000", "\u0001", "\u001f"]);
      return {
        label: `raw control character ${JSON.stringify(raw)} in a string`,
        body: text(`${valid.slice(0, at)}${raw}${valid.slice(at)}`),
        contentType: json,
      };
    }
    case 10: {
      // An escaped NUL or lone surrogate PostgreSQL cannot store, as a value (or as an unknown field).
      const escaped = r.pick(["\\u0000", "\\ud800", "\\udfff", "x\\ud83d"]);
      const at = valid.indexOf(':"');
      const body = at === -1 ? `{"junk":"${escaped}"}` : `${valid.slice(0, at + 2)}${escaped}${valid.slice(at + 2)}`;
      return { label: `escaped ${escaped} in a string`, body: text(body), contentType: json };
    }
    case 11:
      // A byte order mark before the JSON: ignored, as RFC 8259 allows, so the body may be valid.
      return { label: "byte order mark before the JSON", body: text(`\ufeff${valid}`), contentType: json, mayPass: true };
    default: {
      // Bytes that are not UTF-8 (or UTF-8 of a surrogate) inside a string: they decode to U+FFFD,
      // so the body may well be valid.
      const at = valid.indexOf(':"');
      const bytes = r.pick([[0xff], [0xfe, 0xff], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0x80], [0xf0, 0x9f]]);
      if (at === -1) return { label: "non-UTF-8 bytes as the body", body: Buffer.from(bytes), contentType: json };
      return {
        label: `non-UTF-8 bytes ${bytes.map((b) => b.toString(16)).join(" ")} in a string`,
        body: Buffer.concat([text(valid.slice(0, at + 2)), Buffer.from(bytes), text(valid.slice(at + 2))]),
        contentType: json,
        mayPass: true,
      };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// 1. Admin API: the endpoints and their cases

interface Context {
  merchantId: string;
  webhookId: string;
  /** A second endpoint, for update cases that may be valid. */
  scratchWebhookId: string;
}

interface AdminCase {
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

interface BodyEndpoint {
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
function merchantSegment(r: Random, ctx: Context, realShare = 0.9): { id: string; junk: boolean } {
  return r.chance(realShare) ? { id: ctx.merchantId, junk: false } : { id: junkId(r, "mer_"), junk: true };
}

function merchantPath(suffix: string) {
  return (r: Random, ctx: Context) => {
    const merchant = merchantSegment(r, ctx);
    return { path: `/admin/v1/merchants/${merchant.id}/${suffix}`, junk: merchant.junk };
  };
}

// Edge values, valid or not, that only code after the schema check judges (names that trim to
// nothing, currency codes that upper-case to a known one, duplicate e-mails, logo and webhook URLs
// the SSRF guard refuses). Each is sent alone in an otherwise valid body, so it reaches that code;
// a 200 is allowed. No logo URL names a host that would need the network.
const NAME_EDGES = [
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
const magic = (type: string, bytes: number[]) => `data:image/${type};base64,${Buffer.from(bytes).toString("base64")}`;
const LOGO_EDGES = [
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
const WEBHOOK_URL_EDGES = [
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
const WEBHOOK_API_KEY_EDGES = ["a", `Bearer ${"x".repeat(505)}`, "~!@#$%^&*()", "Bearer a b c", "Bearer\u00a0x"];

/** The webhook endpoint the update, rotate, enable and disable cases aim at. */
const TARGET_WEBHOOK = { url: "https://shop.example/hooks/fuzz-target", apiKey: "Bearer fuzz-target-key" };

const BODY_ENDPOINTS: BodyEndpoint[] = [
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

interface ActionEndpoint {
  title: string;
  path(r: Random, ctx: Context): string;
}

const ACTION_ENDPOINTS: ActionEndpoint[] = [
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
function adminAuth(r: Random, token: string): { headers: Record<string, string>; ok: boolean; label: string } {
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

/** Edge-value cases sent on top of the malformed ones, per endpoint. */
const EDGE_CASES = Math.round(CASES / 5);

/** `count` malformed requests, then EDGE_CASES edge values (shuffled in among them by index). */
function generateBodyCases(r: Random, endpoint: BodyEndpoint, ctx: Context, token: string, count: number): AdminCase[] {
  const bodyOptional = !Object.values(endpoint.fields).some((field) => field.required);
  const cases: AdminCase[] = [];
  for (let i = 0; i < count + EDGE_CASES; i++) {
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
        body: text(JSON.stringify(body)),
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
      raw = { label: broken.label, body: text(JSON.stringify(broken.value)), contentType: "application/json" };
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
function generateActionCases(r: Random, endpoint: ActionEndpoint, ctx: Context, token: string, count: number): AdminCase[] {
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
        raw = { label: "a JSON value", body: text(JSON.stringify(randomValue(r)) ?? "null"), contentType: "application/json" };
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

// The delivery log's query string: page (0…1 000 000), pageSize (1…100), webhookId (1…64), state.

type QueryParam = [key: string, value: string, raw?: boolean];

const QUERY_BREAKERS: Array<(r: Random) => { label: string; params: QueryParam[] }> = [
  (r) => {
    const value = r.pick([
      "-1",
      "1.5",
      "abc",
      "",
      "1e3",
      "0x10",
      "1000001",
      "99999999999999999999",
      "+1",
      " 1",
      "1 ",
      "١",
      "NaN",
      "Infinity",
      "true",
      "[]",
      "{}",
      "2147483648000",
    ]);
    return { label: `page=${JSON.stringify(value)}`, params: [["page", value]] };
  },
  (r) => {
    const value = r.pick(["0", "101", "-5", "2.5", "", "x", "1e2", "100000000000000000000", "0x1"]);
    return { label: `pageSize=${JSON.stringify(value)}`, params: [["pageSize", value]] };
  },
  (r) => {
    const value = r.pick(["pending", "PENDING", "Done", "", "Delivered ", "Pending,Failed", "null", "Pending\u0000"]);
    return { label: `state=${JSON.stringify(value)}`, params: [["state", value]] };
  },
  (r) => {
    const [value, raw] = r.pick([
      ["", false],
      ["w".repeat(65 + r.int(500)), false],
      ["a%00b", true],
      ["%00", true],
      ["x\u0000", false],
    ] as const);
    return { label: `webhookId=${JSON.stringify(value.slice(0, 20))}`, params: [["webhookId", value, raw]] };
  },
  (r) => {
    const key = r.pick([
      "foo",
      "constructor",
      "toString",
      "hasOwnProperty",
      "page[]",
      "state[0]",
      "PAGE",
      "merchantId",
      "lang",
      "page.x",
      "pageSize ",
      "\u00e9",
    ]);
    return { label: `unknown parameter ${JSON.stringify(key)}`, params: [[key, r.pick(["1", "", "x"])]] };
  },
  (r) => {
    const [key, value] = r.pick([
      ["page", "1"],
      ["pageSize", "5"],
      ["state", "Pending"],
      ["webhookId", "whk_x"],
    ] as const);
    return {
      label: `${key} twice`,
      params: [
        [key, value],
        [key, r.chance(0.5) ? value : "2"],
      ],
    };
  },
];

function queryNoise(r: Random, ctx: Context): QueryParam {
  switch (r.int(7)) {
    case 0:
      return ["page", String(r.int(6))];
    case 1:
      return ["pageSize", String(1 + r.int(100))];
    case 2:
      return ["state", r.pick(["Pending", "Delivered", "Failed"])];
    case 3:
      return ["webhookId", r.chance(0.5) ? ctx.webhookId : `whk_${alnum(r, 16)}`];
    case 4:
      return ["webhookId", r.pick(BROKEN_PERCENT), true];
    case 5:
      return [r.pick(["__proto__", "", "&", "=", "__proto__[x]"]), r.pick(["1", "", "%zz"]), true];
    default:
      return ["webhookId", percentEncode(randomString(r)).slice(0, 150) || "x", true];
  }
}

function encodeQuery(r: Random, params: QueryParam[]): string {
  return params
    .map(([key, value, raw]) => {
      const encodedKey = r.chance(0.1)
        ? [...Buffer.from(key, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("")
        : percentEncode(key, true);
      return `${encodedKey}=${raw ? value : percentEncode(value, r.chance(0.5))}`;
    })
    .join("&");
}

function generateQueryCases(r: Random, ctx: Context, token: string, count: number): AdminCase[] {
  const cases: AdminCase[] = [];
  for (let i = 0; i < count; i++) {
    const auth = adminAuth(r, token);
    const merchant = merchantSegment(r, ctx, 0.85);
    const params: QueryParam[] = Array.from({ length: r.int(4) }, () => queryNoise(r, ctx));
    // Every case breaks one parameter for certain; a junk merchant is answered 404 even with a valid query.
    const broken = r.pick(QUERY_BREAKERS)(r);
    const at = r.int(params.length + 1);
    params.splice(at, 0, ...broken.params);
    if (broken.params[0]![0] === "page" || broken.params[0]![0] === "pageSize" || broken.params[0]![0] === "state") {
      // A single wrong value: the noise must not give the same key a second value.
      for (let j = params.length - 1; j >= 0; j--)
        if (params[j]![0] === broken.params[0]![0] && !broken.params.includes(params[j]!)) params.splice(j, 1);
    }
    const query = encodeQuery(r, params);
    cases.push({
      label: `${auth.label}${merchant.junk ? "junk id; " : ""}${broken.label}; ?${query.slice(0, 200)}`,
      method: "GET",
      path: `/admin/v1/merchants/${merchant.id}/deliveries?${query}`,
      headers: auth.headers,
      mayPass: false,
    });
  }
  return cases;
}

interface Outcome {
  failures: string[];
  codes: Map<string, number>;
  successes: number;
  /** Requests answered (edge-value cases not included). */
  sent: number;
  edgeCodes?: Map<string, number>;
}

function tally(outcome: Outcome, key: string): void {
  outcome.codes.set(key, (outcome.codes.get(key) ?? 0) + 1);
}

async function runAdminCases(server: TestServer, cases: AdminCase[]): Promise<Outcome> {
  const outcome: Outcome = { failures: [], codes: new Map(), successes: 0, sent: 0 };
  await inPool(cases, IN_FLIGHT, async (c, index) => {
    const headers: Record<string, string> = { ...c.headers };
    if (c.contentType) headers["content-type"] = c.contentType;
    let response: Reply;
    try {
      response = await send(server.baseUrl, c.method, c.path, { body: c.body, headers });
    } catch (error) {
      outcome.failures.push(`#${index} ${c.label}: request failed: ${String(error)}`);
      return;
    }
    const code = typeof response.body === "object" && response.body !== null ? String((response.body as any).errorCode) : "(none)";
    const key = response.status === 200 ? "200" : `${response.status} ${code}`;
    if (c.edge) {
      outcome.edgeCodes ??= new Map();
      outcome.edgeCodes.set(key, (outcome.edgeCodes.get(key) ?? 0) + 1);
    } else {
      outcome.sent++;
      tally(outcome, key);
    }
    if (response.status === 200 && c.mayPass) {
      outcome.successes++;
      return;
    }
    try {
      assert.ok(
        response.status >= 400 && response.status < 500,
        `status ${response.status} is not 4xx${response.status === 200 ? " (and the case was certainly invalid)" : ""}`,
      );
      assertErrorShape(response);
    } catch (error) {
      const sent = c.body ? c.body.subarray(0, 200).toString("utf8") : "(no body)";
      outcome.failures.push(
        `#${index} ${c.label}: ${(error as Error).message.split("\n")[0]} — got ${response.status} ${response.text.slice(0, 200)} — ${c.method} ${c.path.slice(0, 150)} — sent ${sent}`,
      );
    }
  });
  return outcome;
}

function report(outcome: Outcome, minimum: number, context: { diagnostic(message: string): void }): void {
  const summary = [...outcome.codes]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k}×${n}`)
    .join(", ");
  context.diagnostic(`seed ${SEED}; ${outcome.sent} requests; responses: ${summary}`);
  if (outcome.edgeCodes) {
    const edges = [...outcome.edgeCodes]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k}×${n}`)
      .join(", ");
    context.diagnostic(`plus ${[...outcome.edgeCodes.values()].reduce((a, b) => a + b, 0)} edge values: ${edges}`);
  }
  assert.deepEqual(outcome.failures.slice(0, 12), [], `${outcome.failures.length} generated requests were not answered as they should be`);
  assert.ok(outcome.sent >= minimum, `${outcome.sent} requests answered, expected at least ${minimum}`);
}

async function rowCount(server: TestServer, table: string): Promise<number> {
  const { rows } = await sql<{ count: string | number }>`SELECT count(*) AS count FROM ${sql.table(table)}`.execute(server.db);
  return Number(rows[0]!.count);
}

const _ADMIN_TABLES = ["merchants", "terminals", "api_keys", "portal_users", "themes", "webhook_endpoints", "webhook_deliveries"];

// ---------------------------------------------------------------------------------------------
// 2. The checkout form

/** The link's shopper fields: one required, two optional, so the form has more to break. */
const SHOPPER_INFO = [
  { field: "EmailAddress", requirementType: "Required" },
  { field: "FullName", requirementType: "Optional" },
  { field: "Comments", requirementType: "Optional" },
];

interface Pair {
  name: string;
  value: string;
  /** Written into the body as these bytes (latin1), not percent-encoded. */
  raw?: boolean;
}

/** A complete, valid form for the link: the page's hidden inputs, a card, the shopper fields. */
function validForm(r: Random, token: string): Pair[] {
  const card = cardFields(r.pick([CARDS.visa, CARDS.mastercard, CARDS.other]));
  return [
    { name: "csrfToken", value: token },
    { name: "lang", value: r.pick(["is", "en"]) },
    ...Object.entries(card).map(([name, value]) => ({ name, value })),
    { name: "EmailAddress", value: "anna@example.is" },
    { name: "FullName", value: r.pick(["Anna Jónsdóttir", "", "Þór"]) },
    { name: "Comments", value: r.pick(["Takk", "", "🧶"]) },
  ];
}

/** Values that make the form invalid for certain (null: the field left out). Survive the removal of control characters. */
const FORM_BREAKERS: Array<[field: string, value: (r: Random) => string | null]> = [
  ["cardNumber", () => null],
  [
    "cardNumber",
    (r) =>
      r.pick([
        "",
        "   ",
        "4111 1111 1111 1112",
        "1234567890123456",
        "4242",
        "4".repeat(20),
        "４１１１１１１１１１１１１１１１",
        "4111-1111-1111-111a",
        "0".repeat(1000),
        CARDS.visa.repeat(2),
        "4111.1111.1111.1111",
        "-4111111111111111x",
      ]),
  ],
  ["cardExpiry", () => null],
  ["cardExpiry", (r) => r.pick(["", "13/30", "00/30", "01/20", "12/99", "garbage", "1/2", "08/2O30", "0830x", "08//30", "٠٨/٣٠"])],
  ["cardCvc", () => null],
  ["cardCvc", (r) => r.pick(["", "12", "12345", "abc", "1 2 3", "٣٣٣", "7\u00a037"])],
  ["cardHolder", (r) => "A".repeat(101 + r.int(r.chance(0.1) ? 20_000 : 500))],
  ["EmailAddress", () => null],
  ["EmailAddress", (r) => r.pick(["", "  ", "not-an-email", "a b@c.is", "anna@", "@example.is", "anna@example"])],
  ["FullName", (r) => "B".repeat(201 + r.int(500))],
  ["Comments", (r) => "C".repeat(1001 + r.int(2000))],
];

/** Replaces every value of one field with a certainly invalid one (or removes it). Returns the field. */
function breakForm(r: Random, pairs: Pair[]): { field: string; label: string } {
  const [field, make] = r.pick(FORM_BREAKERS);
  const value = make(r);
  for (let i = pairs.length - 1; i >= 0; i--) if (pairs[i]!.name === field) pairs.splice(i, 1);
  if (value !== null) pairs.splice(r.int(pairs.length + 1), 0, { name: field, value });
  return { field, label: value === null ? `no ${field}` : `${field}=${JSON.stringify(value.slice(0, 24))}` };
}

const RAW_FRAGMENTS = [
  "%",
  "%zz",
  "%E0%A4",
  "%ED%A0%80",
  "%00",
  "%01",
  "%1B",
  "%7F",
  "%C0%AF",
  "%FF",
  "%FE%FF",
  "+",
  "\u0000",
  "\u0001",
  "\u007f",
  "\u0080",
  "\u00ff",
  "\u00c3",
  "\u00ed\u00a0\u0080",
  "\t",
  "=",
  "==",
  "&&",
];

/** A change that may or may not leave the form valid. Never touches the field `keep`. */
function formNoise(r: Random, pairs: Pair[], keep: string | undefined): string {
  const others = pairs.filter((pair) => pair.name !== keep);
  switch (r.int(7)) {
    case 0: {
      // a=1&a=2: a second value after the first (the first one counts).
      if (others.length === 0) return "";
      const pair = r.pick(others);
      pairs.push({ name: pair.name, value: r.chance(0.5) ? pair.value : randomString(r) });
      return `${pair.name} twice`;
    }
    case 1: {
      const name = r.pick([
        ...PROTO_KEYS,
        "cardNumber[]",
        "csrfToken[0]",
        "card number",
        "",
        "x".repeat(2000),
        randomString(r).slice(0, 20),
      ]);
      if (name === keep) return "";
      pairs.splice(r.int(pairs.length + 1), 0, { name, value: r.chance(0.8) ? randomString(r) : "" });
      return `unknown field ${JSON.stringify(name.slice(0, 20))}`;
    }
    case 2: {
      // Huge value; sometimes the whole body goes over the 64 KB limit (413).
      const size = r.chance(0.3) ? 70_000 + r.int(30_000) : 1000 + r.int(20_000);
      pairs.push({ name: r.pick(["junk", "description", "lang", "csrfTokenX"]), value: "z".repeat(size) });
      return `huge value (${size})`;
    }
    case 3: {
      // Control characters, NUL and non-UTF-8 bytes, raw in a value.
      if (others.length === 0) return "";
      const pair = r.pick(others);
      const fragment = r.pick(RAW_FRAGMENTS);
      const at = r.int(pair.value.length + 1);
      const encoded = pair.raw ? pair.value : percentEncode(pair.value, true);
      pair.value = `${encoded.slice(0, at)}${fragment}${encoded.slice(at)}`;
      pair.raw = true;
      return `${pair.name} with ${JSON.stringify(fragment)}`;
    }
    case 4: {
      if (others.length === 0) return "";
      const pair = r.pick(others);
      pair.value = r.pick(UNSTORABLE_STRINGS.concat(["\u0000".repeat(50), "\u200b\u200b", "\u202e", "\r\n\r\n"]));
      pair.raw = false;
      return `${pair.name} as ${JSON.stringify(pair.value.slice(0, 10))}`;
    }
    case 5: {
      const lang = r.pick(["xx", "", "IS", "is\u0000", "en-GB", "__proto__", "is&lang=en"]);
      pairs.unshift({ name: "lang", value: lang });
      return `lang=${JSON.stringify(lang)}`;
    }
    default: {
      if (pairs.length > 1) pairs.reverse();
      return "fields reversed";
    }
  }
}

function encodeForm(pairs: Pair[]): Buffer {
  return Buffer.concat(
    pairs.flatMap((pair, i) => [
      Buffer.from(i === 0 ? "" : "&", "latin1"),
      Buffer.from(percentEncode(pair.name, true), "latin1"),
      Buffer.from("=", "latin1"),
      pair.raw ? Buffer.from(pair.value, "latin1") : Buffer.from(percentEncode(pair.value, true), "latin1"),
    ]),
  );
}

function multipart(pairs: Pair[], boundary: string): Buffer {
  const parts = pairs.map(
    (pair) => `--${boundary}\r\nContent-Disposition: form-data; name="${pair.name.replace(/"/g, "")}"\r\n\r\n${pair.value}\r\n`,
  );
  return text(`${parts.join("")}--${boundary}--\r\n`);
}

const FORM = "application/x-www-form-urlencoded";
/** Media types that are a form (or might be read as one): a valid card is always broken there. */
const FORM_TYPES = [
  FORM,
  `${FORM}; charset=UTF-8`,
  "APPLICATION/X-WWW-FORM-URLENCODED",
  `${FORM};charset=iso-8859-1`,
  `${FORM}; boundary=x`,
  `${FORM}-foo`,
  `${FORM}x`,
  `${FORM}, text/plain`,
  `  ${FORM}  `,
];

interface FormCase {
  label: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

interface Tokens {
  reference: string;
  token: string;
  /** A valid token of another link. */
  otherToken: string;
}

function junkToken(r: Random, token: string): string {
  const [attempt, issued, mac] = token.split(".") as [string, string, string];
  return r.pick([
    "",
    "x",
    `${attempt}.${issued}`,
    `${attempt}.${issued}.${mac.slice(0, -1)}A`,
    `${attempt}.${Number(issued) + 1}.${mac}`,
    `${attempt}.0.${mac}`,
    `${alnum(r, 22)}.${issued}.${mac}`,
    `${attempt}.${issued}.${mac}.x`,
    `${attempt}..${mac}`,
    token.toUpperCase(),
    ` ${token}`.slice(0, token.length),
    `${attempt}.99999999999999999999.${mac}`,
    `${attempt}.${issued}.${"A".repeat(43)}`,
    `${"a".repeat(64)}.${issued}.${mac}`,
    randomString(r),
  ]);
}

function generateCheckoutCases(r: Random, tokens: Tokens, count: number): FormCase[] {
  const cases: FormCase[] = [];
  for (let i = 0; i < count; i++) {
    const labels: string[] = [];
    const headers: Record<string, string> = {};
    // The form token: valid (most), junk, missing, or another link's.
    const tokenKind = r.pick(["valid", "valid", "valid", "valid", "junk", "junk", "missing", "other"] as const);
    const token = tokenKind === "valid" ? tokens.token : tokenKind === "other" ? tokens.otherToken : junkToken(r, tokens.token);
    const pairs = validForm(r, token);
    if (tokenKind === "missing") pairs.shift();
    labels.push(`${tokenKind} token`);
    // Headers a browser (or not) sends.
    let crossSite = false;
    if (r.chance(0.15)) {
      const [name, value] = r.pick([
        ["origin", "https://evil.example"],
        ["origin", "null"],
        ["origin", "http://127.0.0.1"],
        ["sec-fetch-site", "cross-site"],
        ["sec-fetch-site", "same-site"],
      ] as const);
      headers[name] = value;
      crossSite = true;
      labels.push(`${name}: ${value}`);
    }
    if (r.chance(0.1)) headers["accept-language"] = r.pick(["xx", "is-IS,is;q=0.9", "*", "\u00e9"]);
    if (r.chance(0.1)) headers.cookie = r.pick(["paylink_lang=xx", "paylink_lang=is; paylink_lang=en", "paylink_lang", ";;;", "a=\u00ff"]);
    const noiseCount = r.int(4);
    const mustBreak = tokenKind === "valid" && !crossSite;

    // The shape of the body. Bodies that are not a form may carry a valid token and card: they must not pay either.
    const shape = r.int(100);
    let body: Buffer | undefined;
    let contentType: string | undefined;
    if (shape < 65) {
      const broken = mustBreak || r.chance(0.5) ? breakForm(r, pairs) : undefined;
      if (broken) labels.push(broken.label);
      for (let n = 0; n < noiseCount; n++) labels.push(formNoise(r, pairs, broken?.field));
      body = encodeForm(pairs);
      contentType = r.chance(0.7) ? FORM : r.pick(FORM_TYPES);
      if (contentType !== FORM) labels.push(`content type ${JSON.stringify(contentType)}`);
    } else {
      // A form-like body with a valid card still must not pay, so the form is broken where it could be read as one.
      const kind = r.pick([
        "json",
        "invalid json",
        "multipart",
        "text",
        "no type",
        "empty form",
        "empty",
        "wrong type",
        "form in a query",
        "bytes",
      ] as const);
      labels.push(kind);
      switch (kind) {
        case "json":
          body = text(JSON.stringify(Object.fromEntries(pairs.map((pair) => [pair.name, pair.value]))));
          contentType = r.pick(["application/json", "application/json; charset=utf-8"]);
          break;
        case "invalid json":
          body = text(r.pick(["{", '{"csrfToken":', "[1,", '{"__proto__":{"x":1}}', "\u0000"]));
          contentType = "application/json";
          break;
        case "multipart": {
          const boundary = `----fuzz${alnum(r, 8)}`;
          body = multipart(pairs, boundary);
          contentType = r.pick([`multipart/form-data; boundary=${boundary}`, "multipart/form-data", "multipart/mixed; boundary=x"]);
          break;
        }
        case "text":
          body = text(pairs.map((pair) => `${pair.name}=${pair.value}`).join(r.pick(["\r\n", "&"])));
          contentType = r.pick(["text/plain", "text/plain; charset=utf-8"]);
          break;
        case "no type":
          body = encodeForm(pairs);
          break;
        case "empty form":
          body = Buffer.alloc(0);
          contentType = FORM;
          break;
        case "empty":
          body = r.chance(0.5) ? Buffer.alloc(0) : undefined;
          break;
        case "wrong type":
          body = encodeForm(pairs);
          contentType = r.pick([
            "application/xml",
            "text/html",
            "application/octet-stream",
            "image/png",
            "application/formdata",
            "form",
            "*/*",
            "application/x-www-form",
          ]);
          break;
        case "form in a query": {
          // The fields in the URL, not in the body: a form post carries them in the body.
          const query = encodeForm(pairs).toString("latin1");
          cases.push({
            label: labels.join("; "),
            path: `/pay/${tokens.reference}?${query}`,
            headers: { ...headers, "content-type": FORM },
            body: Buffer.alloc(0),
          });
          continue;
        }
        default: {
          const bytes = Buffer.alloc(1 + r.int(500));
          for (let b = 0; b < bytes.length; b++) bytes[b] = r.int(256);
          body = bytes;
          contentType = r.pick([FORM, "application/octet-stream"]);
          if (contentType === FORM) {
            // Random bytes could, in theory, spell a valid form: put a broken one in front.
            const broken = breakForm(r, pairs);
            body = Buffer.concat([encodeForm(pairs.filter((pair) => pair.name !== "csrfToken")), text("&"), bytes]);
            labels.push(broken.label, "no token");
          }
        }
      }
    }
    if (contentType !== undefined) headers["content-type"] = contentType;
    const query = r.chance(0.1)
      ? `?${r.pick(["lang=is", "lang=xx", "lang=%00", "lang=is&lang=en", "a=%zz", "lang[]=en", "__proto__=1"])}`
      : "";
    cases.push({ label: labels.filter(Boolean).join("; "), path: `/pay/${tokens.reference}${query}`, headers, body });
  }
  return cases;
}

const CHECKOUT_STATUSES = new Set([400, 402, 403, 413, 415, 422]);

// ---------------------------------------------------------------------------------------------
// 3. Junk paths, as raw bytes in the request line

/** A path segment: text for the request line, in latin1 (so \u0080–\u00ff are single raw bytes). */
function junkSegment(r: Random): { segment: string; label: string } {
  // Raw bytes and control characters (3, 4, 6) mostly stop at Node's HTTP parser: a quarter of the time.
  switch (r.chance(0.75) ? r.pick([0, 1, 2, 5, 7, 8, 9, 10]) : r.int(11)) {
    case 0:
      return { segment: alnum(r, 65 + r.int(r.chance(0.2) ? 6000 : 200)), label: "long" };
    case 1:
      return { segment: r.pick(BROKEN_PERCENT), label: "broken percent-encoding" };
    case 2:
      return { segment: percentEncode(randomString(r)), label: "percent-encoded unicode" };
    case 3:
      return {
        segment: Buffer.from(r.pick(["東京都", "Jón", "🧶", "é".repeat(40), "\u202Eevil", "Ω≈ç"]), "utf8").toString("latin1"),
        label: "raw UTF-8",
      };
    case 4: {
      const length = 1 + r.int(8);
      return { segment: Array.from({ length }, () => String.fromCharCode(0x80 + r.int(128))).join(""), label: "raw non-UTF-8 bytes" };
    }
    case 5:
      return { segment: r.pick([".", "..", "...", "%2e", "%2e%2e", ".%2e", "..%2f..%2f", "%2e%2e%5c", "..;", "....//"]), label: "dots" };
    case 6:
      return { segment: r.pick(["\u0000", "\u0001", "\u007f", "a\u0000b", "\t", "\u001b[31m"]), label: "control characters" };
    case 7:
      return {
        segment: r.pick(["", "/", "//", "?", "??", "?lang=is&lang=en", "?a=%zz", "#", "#frag", "?%00=%00", ";a=b", "*", ":", "@", "$"]),
        label: "separators",
      };
    case 8:
      return {
        segment: r.pick([
          "qr.svg",
          "assets",
          "create",
          "update",
          "disable",
          "list",
          "%20",
          "+",
          "null",
          "__proto__",
          "constructor",
          "{reference}",
          ":reference",
          "*",
        ]),
        label: "route-like words",
      };
    case 9:
      return { segment: percentEncode(r.pick(WEIRD_STRINGS)) || "%20", label: "weird text" };
    default:
      return { segment: `${alnum(r, 1 + r.int(64))}${r.chance(0.5) ? r.pick(BROKEN_PERCENT) : ""}`, label: "reference-like" };
  }
}

interface PathCase {
  label: string;
  method: string;
  path: string;
}

function generatePathCases(r: Random, prefix: string, count: number): PathCase[] {
  const cases: PathCase[] = [];
  for (let i = 0; i < count; i++) {
    const parts = Array.from({ length: 1 + r.int(3) }, () => junkSegment(r));
    const path = `${prefix}${parts.map((p) => p.segment).join(r.pick(["/", "/", "/", "", "//"]))}`;
    const method = r.pick(["GET", "GET", "GET", "GET", "HEAD", "POST", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
    cases.push({ label: parts.map((p) => p.label).join(" + "), method, path });
  }
  return cases;
}

async function runPathCases(server: TestServer, cases: PathCase[], kind: "pay" | "api"): Promise<Outcome & { parserRefusals: number }> {
  const outcome = { failures: [] as string[], codes: new Map<string, number>(), successes: 0, sent: 0, parserRefusals: 0 };
  const port = new URL(server.baseUrl).port;
  await inPool(cases, IN_FLIGHT, async (c, index) => {
    const headers = [`Host: 127.0.0.1:${port}`, "Connection: close"];
    if (kind === "api") headers.push(`X-API-key: ${server.apiKey}`);
    let body = Buffer.alloc(0);
    if (c.method === "POST" || c.method === "PUT" || c.method === "PATCH") {
      body = kind === "pay" ? text("csrfToken=x&cardNumber=4111111111111111&cardExpiry=08%2F40&cardCvc=737") : text("{}");
      headers.push(`Content-Type: ${kind === "pay" ? FORM : "application/json"}`, `Content-Length: ${body.length}`);
    }
    const head = Buffer.from(`${c.method} ${c.path} HTTP/1.1\r\n${headers.join("\r\n")}\r\n\r\n`, "latin1");
    let response: Reply;
    try {
      response = await sendRaw(server.baseUrl, Buffer.concat([head, body]));
    } catch (error) {
      outcome.failures.push(`#${index} ${c.label}: request failed: ${String(error)} — ${c.method} ${JSON.stringify(c.path.slice(0, 150))}`);
      return;
    }
    outcome.sent++;
    // Refused by Node's HTTP parser (a request line with a space, NUL, …), before any route runs:
    // still the documented envelope (http/client-errors.ts), for the checkout's paths too.
    const parserRefusal =
      typeof response.body === "object" && response.body !== null && /not valid HTTP/.test(String((response.body as any).errorMessage));
    if (parserRefusal) outcome.parserRefusals++;
    const code =
      kind === "api" && typeof response.body === "object" && response.body !== null
        ? ` ${(response.body as any).errorCode ?? "(parser)"}`
        : "";
    tally(outcome, `${response.status}${code}`);
    try {
      assert.ok(response.status >= 400 && response.status < 500, `status ${response.status} is not 4xx`);
      if (parserRefusal) assertErrorShape(response);
      else if (c.method !== "HEAD") {
        if (kind === "pay")
          assert.match(response.headers.get("content-type") ?? "", /^text\/html/, "the checkout answers with an HTML page");
        else assertErrorShape(response);
      }
    } catch (error) {
      outcome.failures.push(
        `#${index} ${c.label}: ${(error as Error).message.split("\n")[0]} — got ${response.status} ${response.text.slice(0, 160)} — ${c.method} ${JSON.stringify(c.path.slice(0, 150))}`,
      );
    }
  });
  return outcome;
}

// ---------------------------------------------------------------------------------------------
// Running

async function adminJson(server: TestServer, method: string, path: string, body?: unknown): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${server.adminToken}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  return send(server.baseUrl, method, path, { headers, body: body === undefined ? undefined : text(JSON.stringify(body)) });
}

for (const backend of testBackends()) {
  describe(`generated malformed admin, checkout and path input never gets a 5xx (${backend.name})`, () => {
    let server: TestServer;
    const ctx: Context = { merchantId: "", webhookId: "", scratchWebhookId: "" };
    let webhookBefore: unknown;
    let reference: string;
    let otherReference: string;

    before(async () => {
      server = await startTestServer({ backend });
      ctx.merchantId = server.merchantId;
      const created = await adminJson(server, "POST", `/admin/v1/merchants/${server.merchantId}/webhooks`, TARGET_WEBHOOK);
      assert.equal(created.status, 200, created.text);
      ctx.webhookId = (created.body as any).webhookId;
      const scratch = await adminJson(server, "POST", `/admin/v1/merchants/${server.merchantId}/webhooks`, {
        url: "https://shop.example/hooks/scratch",
      });
      assert.equal(scratch.status, 200, scratch.text);
      ctx.scratchWebhookId = (scratch.body as any).webhookId;
      webhookBefore = (await adminJson(server, "GET", `/admin/v1/merchants/${server.merchantId}/webhooks`)).body;
      reference = await createLink(server, payByLink(server, { shopperInfo: SHOPPER_INFO }));
      otherReference = await createLink(server, simplePayByLink(server));
    });
    after(async () => {
      agent.destroy();
      await server?.close();
    });

    BODY_ENDPOINTS.forEach((endpoint, n) => {
      it(`${endpoint.title}: ${CASES} malformed requests all 4xx, plus ${EDGE_CASES} edge values 4xx or 200`, async (t) => {
        const before = endpoint.table ? await rowCount(server, endpoint.table) : 0;
        const cases = generateBodyCases(new Random(SEED + n), endpoint, ctx, server.adminToken, CASES);
        const outcome = await runAdminCases(server, cases);
        report(outcome, CASES, t);
        if (endpoint.table)
          assert.equal(
            await rowCount(server, endpoint.table),
            before + outcome.successes,
            `${endpoint.table}: one new row per 200, no other change`,
          );
      });
    });

    ACTION_ENDPOINTS.forEach((endpoint, n) => {
      it(`${endpoint.title}: ${CASES} generated requests, all 4xx`, async (t) => {
        const cases = generateActionCases(new Random(SEED + 100 + n), endpoint, ctx, server.adminToken, CASES);
        report(await runAdminCases(server, cases), CASES, t);
      });
    });

    it(`GET /admin/v1/merchants/{id}/deliveries: ${CASES} generated query strings, all 4xx`, async (t) => {
      const cases = generateQueryCases(new Random(SEED + 200), ctx, server.adminToken, CASES);
      report(await runAdminCases(server, cases), CASES, t);
    });

    it("the admin data is intact: the fuzzed webhook endpoint is unchanged, the fixture merchant still works", async () => {
      const webhooks = await adminJson(server, "GET", `/admin/v1/merchants/${server.merchantId}/webhooks`);
      assert.equal(webhooks.status, 200);
      // updatedAt moves when a generated update happens to be valid: it then sends the target's own values.
      const { updatedAt: _after, ...target } = (webhooks.body as any).data.find((e: any) => e.webhookId === ctx.webhookId);
      const { updatedAt: _before, ...targetBefore } = (webhookBefore as any).data.find((e: any) => e.webhookId === ctx.webhookId);
      assert.deepEqual(target, targetBefore, "url, keys, enabled state of the target are as before");
      const deliveries = await adminJson(
        server,
        "GET",
        `/admin/v1/merchants/${server.merchantId}/deliveries?page=0&pageSize=5&state=Pending`,
      );
      assert.equal(deliveries.status, 200, deliveries.text);
      assert.equal(await rowCount(server, "webhook_deliveries"), 0, "no delivery was queued");
      const link = await server.api("GET", `/api/v1/paymentlinks/${reference}`);
      assert.equal(link.status, 200, "the fixture API key still works");
    });

    it(`POST /pay/{reference}: ${CASES} generated form posts, all HTML 4xx, no sale and no submission`, async (t) => {
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      assert.equal(page.status, 200);
      const otherPage = await getPage(server.baseUrl, `/pay/${otherReference}`);
      const tokens: Tokens = { reference, token: hiddenInputs(page.html).csrfToken!, otherToken: hiddenInputs(otherPage.html).csrfToken! };
      assert.ok(tokens.token && tokens.otherToken);
      const cases = generateCheckoutCases(new Random(SEED + 300), tokens, CASES);

      const outcome: Outcome = { failures: [], codes: new Map(), successes: 0, sent: 0 };
      await inPool(cases, IN_FLIGHT, async (c, index) => {
        let response: Reply;
        try {
          response = await send(server.baseUrl, "POST", c.path, { body: c.body, headers: c.headers });
        } catch (error) {
          outcome.failures.push(`#${index} ${c.label}: request failed: ${String(error)}`);
          return;
        }
        outcome.sent++;
        tally(outcome, String(response.status));
        try {
          assert.ok(CHECKOUT_STATUSES.has(response.status), `status ${response.status} is not one of ${[...CHECKOUT_STATUSES].join("/")}`);
          assert.match(response.headers.get("content-type") ?? "", /^text\/html; charset=utf-8/, "an HTML page");
          assert.match(response.text, /^<!DOCTYPE html>/i, "a whole page");
        } catch (error) {
          const sent = c.body ? c.body.subarray(0, 200).toString("latin1") : "(no body)";
          outcome.failures.push(
            `#${index} ${c.label}: ${(error as Error).message.split("\n")[0]} — got ${response.status} ${textOf(response.text).slice(0, 160)} — headers ${JSON.stringify(c.headers)} — sent ${JSON.stringify(sent)}`,
          );
        }
      });
      report(outcome, CASES, t);

      const link = await getLink(server, reference);
      assert.equal(link.salesCount, 0, "no sale");
      assert.deepEqual(link.submissions, [], "no submission");
      assert.equal(link.status, "Active");
      assert.equal(await rowCount(server, "submissions"), 0, "no submission on any link");
      assert.equal(await rowCount(server, "webhook_deliveries"), 0, "no webhook queued");
    });

    it("the generator's form before breaking is a valid payment (so the breaking is what refuses the posts above)", async () => {
      const page = await getPage(server.baseUrl, `/pay/${reference}`);
      const form = validForm(new Random(SEED), hiddenInputs(page.html).csrfToken!);
      const response = await postForm(server.baseUrl, reference, Object.fromEntries(form.map((pair) => [pair.name, pair.value])));
      assert.equal(response.status, 200, textOf(response.html).slice(0, 300));
      const link = await getLink(server, reference);
      assert.equal(link.salesCount, 1);
      assert.equal(link.submissions.length, 1);
    });

    it(`${PATH_CASES} junk paths under /pay/ (GET, HEAD, POST, …): 4xx HTML pages, never a 5xx`, async (t) => {
      const outcome = await runPathCases(server, generatePathCases(new Random(SEED + 400), "/pay/", PATH_CASES), "pay");
      t.diagnostic(`${outcome.parserRefusals} refused by the HTTP parser`);
      report(outcome, PATH_CASES, t);
    });

    it(`${PATH_CASES} junk paths under /api/v1/paymentlinks/ (GET, HEAD, POST, …): 4xx in the error envelope, never a 5xx`, async (t) => {
      const outcome = await runPathCases(server, generatePathCases(new Random(SEED + 500), "/api/v1/paymentlinks/", PATH_CASES), "api");
      t.diagnostic(`${outcome.parserRefusals} refused by the HTTP parser`);
      report(outcome, PATH_CASES, t);
    });

    it("the server still works normally afterwards", async () => {
      assert.equal((await fetch(`${server.baseUrl}/readyz`)).status, 200);
      const list = await server.api("GET", "/api/v1/paymentlinks?pageSize=100");
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.data.map((e: any) => e.paymentLinkReference).sort(), [reference, otherReference].sort());
    });
  });
}
