// The checkout form fuzz generator (POST /pay/{reference}): a valid form that is then broken for
// certain, or sent with a token, headers or a body shape that must not pay either. No case is a
// valid card attempt. test/checkout/fuzz.test.ts sends the cases and judges the answers.

import { alnum, PROTO_KEYS, percentEncode, type Random, randomString, UNSTORABLE_STRINGS, utf8 } from "./fuzz.ts";
import { CARDS, cardFields } from "./shopper.ts";

/** The link's shopper fields: one required, two optional, so the form has more to break. */
export const SHOPPER_INFO = [
  { field: "EmailAddress", requirementType: "Required" },
  { field: "FullName", requirementType: "Optional" },
  { field: "Comments", requirementType: "Optional" },
];

export interface Pair {
  name: string;
  value: string;
  /** Written into the body as these bytes (latin1), not percent-encoded. */
  raw?: boolean;
}

/** A complete, valid form for the link: the page's hidden inputs, a card, the shopper fields. */
export function validForm(r: Random, token: string): Pair[] {
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
export const FORM_BREAKERS: Array<[field: string, value: (r: Random) => string | null]> = [
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
export function breakForm(r: Random, pairs: Pair[]): { field: string; label: string } {
  const [field, make] = r.pick(FORM_BREAKERS);
  const value = make(r);
  for (let i = pairs.length - 1; i >= 0; i--) if (pairs[i]!.name === field) pairs.splice(i, 1);
  if (value !== null) pairs.splice(r.int(pairs.length + 1), 0, { name: field, value });
  return { field, label: value === null ? `no ${field}` : `${field}=${JSON.stringify(value.slice(0, 24))}` };
}

export const RAW_FRAGMENTS = [
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
export function formNoise(r: Random, pairs: Pair[], keep: string | undefined): string {
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

export function encodeForm(pairs: Pair[]): Buffer {
  return Buffer.concat(
    pairs.flatMap((pair, i) => [
      Buffer.from(i === 0 ? "" : "&", "latin1"),
      Buffer.from(percentEncode(pair.name, true), "latin1"),
      Buffer.from("=", "latin1"),
      pair.raw ? Buffer.from(pair.value, "latin1") : Buffer.from(percentEncode(pair.value, true), "latin1"),
    ]),
  );
}

export function multipart(pairs: Pair[], boundary: string): Buffer {
  const parts = pairs.map(
    (pair) => `--${boundary}\r\nContent-Disposition: form-data; name="${pair.name.replace(/"/g, "")}"\r\n\r\n${pair.value}\r\n`,
  );
  return utf8(`${parts.join("")}--${boundary}--\r\n`);
}

export const FORM = "application/x-www-form-urlencoded";
/** Media types that are a form (or might be read as one): a valid card is always broken there. */
export const FORM_TYPES = [
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

export interface FormCase {
  label: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface Tokens {
  reference: string;
  token: string;
  /** A valid token of another link. */
  otherToken: string;
}

export function junkToken(r: Random, token: string): string {
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

export function generateCheckoutCases(r: Random, tokens: Tokens, count: number): FormCase[] {
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
          body = utf8(JSON.stringify(Object.fromEntries(pairs.map((pair) => [pair.name, pair.value]))));
          contentType = r.pick(["application/json", "application/json; charset=utf-8"]);
          break;
        case "invalid json":
          body = utf8(r.pick(["{", '{"csrfToken":', "[1,", '{"__proto__":{"x":1}}', "\u0000"]));
          contentType = "application/json";
          break;
        case "multipart": {
          const boundary = `----fuzz${alnum(r, 8)}`;
          body = multipart(pairs, boundary);
          contentType = r.pick([`multipart/form-data; boundary=${boundary}`, "multipart/form-data", "multipart/mixed; boundary=x"]);
          break;
        }
        case "text":
          body = utf8(pairs.map((pair) => `${pair.name}=${pair.value}`).join(r.pick(["\r\n", "&"])));
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
            body = Buffer.concat([encodeForm(pairs.filter((pair) => pair.name !== "csrfToken")), utf8("&"), bytes]);
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

export const CHECKOUT_STATUSES = new Set([400, 402, 403, 413, 415, 422]);
