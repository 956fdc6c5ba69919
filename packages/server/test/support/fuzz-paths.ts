// Junk paths for the raw request line: segments of dots, broken percent-encoding, raw UTF-8 and
// non-UTF-8 bytes, control characters, separators and route-like words.
import { alnum, BROKEN_PERCENT, percentEncode, type Random, randomString, WEIRD_STRINGS } from "./fuzz.ts";

/** A path segment: text for the request line, in latin1 (so \u0080–\u00ff are single raw bytes). */
export function junkSegment(r: Random): { segment: string; label: string } {
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

export interface PathCase {
  label: string;
  method: string;
  path: string;
}

export function generatePathCases(r: Random, prefix: string, count: number): PathCase[] {
  const cases: PathCase[] = [];
  for (let i = 0; i < count; i++) {
    const parts = Array.from({ length: 1 + r.int(3) }, () => junkSegment(r));
    const path = `${prefix}${parts.map((p) => p.segment).join(r.pick(["/", "/", "/", "", "//"]))}`;
    const method = r.pick(["GET", "GET", "GET", "GET", "HEAD", "POST", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
    cases.push({ label: parts.map((p) => p.label).join(" + "), method, path });
  }
  return cases;
}
