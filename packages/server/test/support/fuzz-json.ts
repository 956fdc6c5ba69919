// Generated JSON bodies that break a schema, for the admin fuzz suite: a field spec per endpoint;
// "noise" (changes that may or may not be valid), one change that is certainly invalid, and cases
// broken below the JSON level (bytes, syntax, media type, size).
import {
  type Kind,
  nested,
  PROTO_KEYS,
  type Random,
  randomString,
  randomValue,
  UNSTORABLE_STRINGS,
  utf8,
  WEIRD_NUMBERS,
  WRONG_CONTENT_TYPES,
  wrongType,
} from "./fuzz.ts";

export type Body = Record<string, any>;

export interface FieldSpec {
  kind: Kind;
  required?: boolean;
  /** The schema's maxLength of a string field. */
  maxLength?: number;
  /** Values of the right JSON type that break a rule of this field whatever else the body says. */
  invalid?: readonly unknown[];
}

/** A change that may or may not be valid on its own. */
export function noise(r: Random, fields: Record<string, FieldSpec>, body: Body): void {
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
export function breakBody(r: Random, fields: Record<string, FieldSpec>, body: Body): { label: string; value: unknown } {
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

export interface RawCase {
  label: string;
  body?: Buffer;
  contentType?: string | null;
  /** The request may be a valid one (where the endpoint takes it). */
  mayPass?: boolean;
}

/** A request broken below the JSON level: bytes, syntax, media type, size. */
export function rawJsonCase(r: Random, valid: string, fields: Record<string, FieldSpec>, bodyOptional: boolean): RawCase {
  const json = "application/json";
  switch (r.int(13)) {
    case 0:
      return { label: "truncated JSON", body: utf8(valid.slice(0, r.int(valid.length))), contentType: json };
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
      return { label: `invalid JSON ${JSON.stringify(broken.slice(0, 30))}`, body: utf8(broken), contentType: json };
    }
    case 2: {
      const bytes = Buffer.alloc(1 + r.int(300));
      for (let i = 0; i < bytes.length; i++) bytes[i] = r.int(256);
      return { label: "random bytes as JSON", body: bytes, contentType: json };
    }
    case 3:
      return { label: "body without a content type", body: utf8(valid), contentType: null };
    case 4: {
      const contentType = r.pick(WRONG_CONTENT_TYPES);
      return {
        label: `content type ${contentType}`,
        body: utf8(contentType.includes("form") ? "name=x&url=https%3A%2F%2Fshop.example%2F" : valid),
        contentType,
      };
    }
    case 5: {
      const poison = r.pick(['"__proto__": {"isAdmin": true}', '"__proto__": null', '"constructor": {"prototype": {"polluted": 1}}']);
      return { label: `prototype pollution ${poison.slice(0, 20)}`, body: utf8(valid.replace(/^\{/, `{${poison},`)), contentType: json };
    }
    case 6: {
      const top = r.pick(["[]", "[{}]", "0", "-1", '"x"', "true", "false", "null", `[${valid}]`, "1e999", `"${"x".repeat(5000)}"`]);
      return { label: `top-level ${top.slice(0, 20)}`, body: utf8(top), contentType: json, mayPass: top === "null" && bodyOptional };
    }
    case 7: {
      if (r.chance(0.15))
        return { label: "body over 1 MiB", body: utf8(`{"name":"${"x".repeat(1024 * 1024 + r.int(1000))}"}`), contentType: json };
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
      if (names.length === 0) return { label: "duplicate key", body: utf8('{"a":1,"a":2,}'), contentType: json };
      const key = r.pick(names);
      const last = JSON.stringify(wrongType(r, fields[key]!.kind));
      return { label: `duplicate key ${key}`, body: utf8(valid.replace(/\}$/, `,${JSON.stringify(key)}:${last}}`)), contentType: json };
    }
    case 9: {
      // An unescaped control character inside a JSON string is not JSON (outside a string, only
      // white space is allowed: NUL and its kin are not).
      const at = valid.indexOf('"') + 1;
      const raw = at > 0 ? r.pick(["\u0000", "\u0001", "\n", "\u001f"]) : r.pick(["\u0000", "\u0001", "\u001f"]);
      return {
        label: `raw control character ${JSON.stringify(raw)} in a string`,
        body: utf8(`${valid.slice(0, at)}${raw}${valid.slice(at)}`),
        contentType: json,
      };
    }
    case 10: {
      // An escaped NUL or lone surrogate PostgreSQL cannot store, as a value (or as an unknown field).
      const escaped = r.pick(["\\u0000", "\\ud800", "\\udfff", "x\\ud83d"]);
      const at = valid.indexOf(':"');
      const body = at === -1 ? `{"junk":"${escaped}"}` : `${valid.slice(0, at + 2)}${escaped}${valid.slice(at + 2)}`;
      return { label: `escaped ${escaped} in a string`, body: utf8(body), contentType: json };
    }
    case 11:
      // A byte order mark before the JSON: ignored, as RFC 8259 allows, so the body may be valid.
      return { label: "byte order mark before the JSON", body: utf8(`\ufeff${valid}`), contentType: json, mayPass: true };
    default: {
      // Bytes that are not UTF-8 (or UTF-8 of a surrogate) inside a string: they decode to U+FFFD,
      // so the body may well be valid.
      const at = valid.indexOf(':"');
      const bytes = r.pick([[0xff], [0xfe, 0xff], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0x80], [0xf0, 0x9f]]);
      if (at === -1) return { label: "non-UTF-8 bytes as the body", body: Buffer.from(bytes), contentType: json };
      return {
        label: `non-UTF-8 bytes ${bytes.map((b) => b.toString(16)).join(" ")} in a string`,
        body: Buffer.concat([utf8(valid.slice(0, at + 2)), Buffer.from(bytes), utf8(valid.slice(at + 2))]),
        contentType: json,
        mayPass: true,
      };
    }
  }
}
