// The generator toolkit of the fuzz suites (test/api/fuzz.test.ts, test/admin/fuzz.test.ts,
// test/checkout/fuzz.test.ts, test/http/fuzz-paths.test.ts), kept in one place so that they all
// generate from the same PRNG and the same pools of awkward values instead of copies that drift
// apart: a seeded mulberry32 PRNG (no dependency, so FUZZ_SEED reproduces a run), pools of strange
// strings, numbers, unstorable text and prototype keys, random JSON values, values of the wrong
// JSON type, wrong content types, URL segments that name nothing, a pool that keeps a fixed number
// of requests in flight, and the tally every suite reports.
// What each suite sends lives in its generator module beside this one (fuzz-*.ts); what it
// asserts stays in the suite.
import assert from "node:assert/strict";

// ---------------------------------------------------------------------------------------------
// Seeded pseudo-random numbers (mulberry32)

export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }
  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }
}

// ---------------------------------------------------------------------------------------------
// Values

export const WEIRD_STRINGS = [
  "",
  " ",
  "NaN",
  "Infinity",
  "-Infinity",
  "null",
  "undefined",
  "true",
  "0",
  "-1",
  "1e999",
  "0x10",
  "48900",
  "48900.0",
  "١٢٣٤",
  "𝟘𝟙𝟚",
  "Ω≈ç√∫˜µ≤",
  "🧶🔥👩‍👩‍👧",
  "\u202Eevil",
  "Jón Þór Ægisson",
  "東京都",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "%00",
  "../../etc/passwd",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, as text
  "${7*7}",
  "{{7*7}}",
  "\n\r\t",
  "PayByLink ",
  "paybylink",
  "isk",
  "__proto__",
  "constructor",
  "x".repeat(1000),
  "é".repeat(600),
];
export const WEIRD_NUMBERS = [
  0,
  -0,
  -1,
  1,
  0.5,
  -0.0001,
  1.5,
  2 ** 31,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  100_000_000_100,
  1e15,
  1e21,
  1e308,
  -1e308,
  5e-324,
];
/** Text PostgreSQL cannot store: NUL, lone surrogates. */
export const UNSTORABLE_STRINGS = ["a\u0000b", "\u0000", "half \ud83d", "\udc00 alone", "x\ud800\ud800y"];
export const PROTO_KEYS = ["__proto__", "constructor", "prototype", "__defineGetter__", "hasOwnProperty", "toString", "valueOf"];

/** A weird string (most often), or up to 30 random characters from a few Unicode ranges. */
export function randomString(r: Random): string {
  if (r.chance(0.6)) return r.pick(WEIRD_STRINGS);
  const length = r.int(30);
  let text = "";
  for (let i = 0; i < length; i++) {
    const range = r.pick([
      [0x20, 0x7e],
      [0xa0, 0x2ff],
      [0x400, 0x4ff],
      [0x4e00, 0x4fff],
      [0x1f300, 0x1f6ff],
    ] as const);
    text += String.fromCodePoint(range[0] + r.int(range[1] - range[0]));
  }
  return text;
}

/** The leaf wrapped in `depth` arrays and one-key objects. */
export function nested(r: Random, depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = r.chance(0.5) ? [value] : { [r.pick(["a", "items", "x", "0"])]: value };
  return value;
}

/** Any JSON value: null, booleans, numbers, strings, small arrays and objects, deep nesting. */
export function randomValue(r: Random, depth = 2): unknown {
  switch (r.int(depth > 0 ? 8 : 5)) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick(WEIRD_NUMBERS);
    case 3:
      return r.int(2_000_000) - 1_000_000;
    case 4:
      return randomString(r);
    case 5:
      return Array.from({ length: r.int(4) }, () => randomValue(r, depth - 1));
    case 6:
      return Object.fromEntries(Array.from({ length: r.int(4) }, () => [randomString(r).slice(0, 20), randomValue(r, depth - 1)]));
    default:
      return nested(r, 1 + r.int(60), randomValue(r, 0));
  }
}

// ---------------------------------------------------------------------------------------------
// JSON types

export type Kind = "string" | "integer" | "array" | "object";

export function hasKind(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case "string":
      return typeof value === "string";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
  }
}

/** A JSON value that is certainly not of this kind (and not null when null is allowed). */
export function wrongType(r: Random, kind: Kind, nullable = false): unknown {
  for (;;) {
    const value = r.chance(0.15) ? r.pick([0.5, 1.5, -0.25, Math.PI]) : randomValue(r);
    if (value === null && nullable) continue;
    if (!hasKind(value, kind)) return value;
  }
}

// ---------------------------------------------------------------------------------------------
// Requests

/** Content types a JSON endpoint must refuse. */
export const WRONG_CONTENT_TYPES = [
  "text/plain",
  "text/plain; charset=utf-8",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=xyz",
  "application/xml",
  "text/json",
  "application/jsonp",
  "application/jsonx",
  "application/json-patch+json",
  "application/octet-stream",
  "image/png",
  "json",
  "*/*",
];

/** Runs `work` over the items with at most `inFlight` of them under way at once. */
export async function inPool<T>(items: readonly T[], inFlight: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index]!, index);
      }
    }),
  );
}

/** Requests each suite keeps in flight at once. */
export const IN_FLIGHT = 8;

// ---------------------------------------------------------------------------------------------
// URL segments and bodies as bytes

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
export const alnum = (r: Random, length: number) => Array.from({ length }, () => r.pick([...ALNUM])).join("");

/** UTF-8 bytes of a text. */
export const utf8 = (value: string) => Buffer.from(value, "utf8");

/** Percent-encodes the UTF-8 bytes of the text (a lone surrogate becomes U+FFFD), as a URL or form would. */
export function percentEncode(text: string, spaceAsPlus = false): string {
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
export const BROKEN_PERCENT = [
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
export function junkId(r: Random, prefix: string): string {
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
// The tally of a run

export interface Outcome {
  failures: string[];
  codes: Map<string, number>;
  successes: number;
  /** Requests answered (edge-value cases not included). */
  sent: number;
  edgeCodes?: Map<string, number>;
}

export const newOutcome = (): Outcome => ({ failures: [], codes: new Map(), successes: 0, sent: 0 });

export function tally(outcome: Outcome, key: string): void {
  outcome.codes.set(key, (outcome.codes.get(key) ?? 0) + 1);
}

/** Prints what the server answered, then fails on the first failures or on too few answers. */
export function report(outcome: Outcome, seed: number, minimum: number, context: { diagnostic(message: string): void }): void {
  const summary = [...outcome.codes]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k}×${n}`)
    .join(", ");
  context.diagnostic(`seed ${seed}; ${outcome.sent} requests; responses: ${summary}`);
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
