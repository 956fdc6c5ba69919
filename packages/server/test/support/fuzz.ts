// The generator toolkit of the fuzz suites (test/api/errors-fuzz.test.ts,
// test/http/fuzz-admin-checkout.test.ts), kept in one place so that both generate from the same
// PRNG and the same pools of awkward values instead of two copies that drift apart: a seeded
// mulberry32 PRNG (no dependency, so FUZZ_SEED reproduces a run), pools of strange strings,
// numbers, unstorable text and prototype keys, random JSON values, values of the wrong JSON type,
// wrong content types, and a pool that keeps a fixed number of requests in flight.
// What each suite sends, and what it asserts, stays in the suite.

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
