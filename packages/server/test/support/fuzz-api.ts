// The JSON API fuzz generator (POST /api/v1/paymentlinks/create, update, disable): a field spec
// per body, a valid base body, "noise" changes that may or may not be valid, one change that is
// certainly invalid, and cases broken below the JSON level (invalid or truncated JSON, random
// bytes, prototype-pollution keys, wrong content types, oversized bodies). No case may succeed.
// test/api/fuzz.test.ts sends the cases and judges the answers.
import {
  type Kind,
  nested,
  PROTO_KEYS,
  type Random,
  randomString,
  randomValue,
  UNSTORABLE_STRINGS,
  WRONG_CONTENT_TYPES,
  wrongType,
} from "./fuzz.ts";
import type { MerchantFixture } from "./harness.ts";

// ---------------------------------------------------------------------------------------------
// The shapes of the three bodies

export interface FieldSpec {
  kind: Kind;
  nullable?: boolean;
  required?: boolean;
  /** Values of the right JSON type that break a rule of this field whatever else the body says. */
  invalid?: readonly unknown[];
}

export const AMOUNT_INVALID = [100_000_000_100, 1e15, 1e308, -1, -100, -48900];
export const SALES_CAP_INVALID = [0, -1, -5, 1_000_000_001, 1e12];
export const DATE_INVALID = [
  "garbage",
  "2030-13-45T00:00:00Z",
  "31/12/2030",
  "0000-01-01T00:00:00Z",
  "2001-01-01T00:00:00Z",
  "1999-12-31",
  "x".repeat(41),
];
export const URL_INVALID = [
  "http://example.com/thanks",
  "javascript:alert(1)",
  "data:text/html,hi",
  "ftp://example.com",
  "not a url",
  "",
  "/relative",
  `https://${"a".repeat(2050)}`,
];

export const ITEM_FIELDS: Record<string, FieldSpec> = {
  name: { kind: "string", required: true, invalid: ["", "n".repeat(201)] },
  quantity: { kind: "integer", required: true, invalid: [0, -1, 1_000_001, 1e20] },
  unitPrice: { kind: "integer", required: true, invalid: [-1, 100_000_000_001] },
  amountWithoutDiscount: { kind: "integer", required: true, invalid: [-1, 100_000_000_001] },
  amount: { kind: "integer", required: true, invalid: [-1, 100_000_000_001] },
};

export const SHOPPER_FIELDS: Record<string, FieldSpec> = {
  field: { kind: "string", required: true, invalid: ["ShoeSize", "email", "", "Ssn "] },
  requirementType: { kind: "string", required: true, invalid: ["Mandatory", "required", ""] },
  prefilledValue: { kind: "string", nullable: true, invalid: ["p".repeat(1001)] },
};

export const CREATE_FIELDS: Record<string, FieldSpec> = {
  type: { kind: "string", required: true, invalid: ["paybylink", "PayByLink ", "", "Refund", "TokenizeByLink\u0000"] },
  terminalIdentifier: { kind: "string", required: true, invalid: ["a".repeat(11), "a".repeat(13), "", "000000000000"] },
  amount: { kind: "integer", required: true, invalid: AMOUNT_INVALID },
  currency: { kind: "string", required: true, invalid: ["XYZ", "EU", "EURO", "", "€€€", "12$"] },
  items: { kind: "array" },
  recurringProcessingModel: { kind: "string", nullable: true, invalid: ["Weekly", "cardonfile", ""] },
  culture: { kind: "string", nullable: true, invalid: ["de", "IS", "", "en-GB"] },
  themeKey: { kind: "string", nullable: true, invalid: ["", "thm_unknown", "t".repeat(65)] },
  expiresAt: { kind: "string", nullable: true, invalid: DATE_INVALID },
  validUntil: { kind: "string", nullable: true, invalid: DATE_INVALID },
  description: { kind: "string", nullable: true, invalid: ["d".repeat(501), "ð".repeat(600)] },
  returnUrl: { kind: "string", nullable: true, invalid: URL_INVALID },
  exactSalesCount: { kind: "integer", nullable: true, invalid: SALES_CAP_INVALID },
  maxSalesCount: { kind: "integer", nullable: true, invalid: SALES_CAP_INVALID },
  shopperInfo: { kind: "array", nullable: true },
};

/** Update: every field but the reference is optional; server-managed fields take anything. */
export const UPDATE_FIELDS: Record<string, FieldSpec> = {
  paymentLinkReference: { kind: "string", required: true, invalid: ["", "r".repeat(65), "noSuchLink000000"] },
  terminalIdentifier: { kind: "string", invalid: ["a".repeat(11), "a".repeat(13), "bbbbbbbbbbbb"] },
  type: { kind: "string", invalid: ["TokenizeByLink", "paybylink", ""] },
  themeKey: CREATE_FIELDS.themeKey!,
  description: CREATE_FIELDS.description!,
  amount: { kind: "integer", invalid: AMOUNT_INVALID },
  currency: { kind: "string", invalid: ["XYZ", "EU", "EURO", ""] },
  returnUrl: CREATE_FIELDS.returnUrl!,
  status: { kind: "string", invalid: ["Nope", "active", "Expired", "Used", "Completed", ""] },
  culture: { kind: "string", invalid: ["de", "IS", ""] },
  validUntil: { kind: "string", nullable: true, invalid: DATE_INVALID },
  expiresAt: { kind: "string", nullable: true, invalid: ["garbage", "0000-01-01T00:00:00Z", "2001-01-01T00:00:00Z"] },
  recurringProcessingModel: CREATE_FIELDS.recurringProcessingModel!,
  maxSalesCount: { kind: "integer", nullable: true, invalid: SALES_CAP_INVALID },
  exactSalesCount: { kind: "integer", nullable: true, invalid: SALES_CAP_INVALID },
  items: { kind: "array" },
  shopperInfo: { kind: "array" },
};
export const UPDATE_IGNORED = ["url", "createdAt", "visitCount", "salesCount", "submissions"];

export const DISABLE_FIELDS: Record<string, FieldSpec> = {
  paymentLinkReference: { kind: "string", required: true, invalid: ["", "r".repeat(65), "noSuchLink000000"] },
};

// ---------------------------------------------------------------------------------------------
// Cases

export interface Case {
  label: string;
  body?: string | Uint8Array<ArrayBuffer>;
  contentType?: string | null;
  headers?: Record<string, string>;
}

export type Body = Record<string, any>;

export interface EndpointModel {
  fields: Record<string, FieldSpec>;
  /** Fields that may hold anything (update's server-managed fields). */
  ignored: string[];
  /** A fresh valid body. */
  base(r: Random): Body;
}

export function validItem(r: Random, amount: number): Body {
  return {
    name: randomString(r).slice(0, 50) || "Item",
    quantity: 1 + r.int(3),
    unitPrice: amount,
    amountWithoutDiscount: amount + r.int(2) * 100,
    amount,
  };
}

export function createModel(merchant: MerchantFixture): EndpointModel {
  return {
    fields: CREATE_FIELDS,
    ignored: [],
    base(r) {
      if (r.chance(0.25)) {
        const body: Body = {
          type: "TokenizeByLink",
          terminalIdentifier: merchant.terminalIdentifier,
          amount: 0,
          currency: r.pick(["ISK", "EUR", "USD"]),
        };
        if (r.chance(0.5)) body.recurringProcessingModel = r.pick(["CardOnFile", "Subscription", "UnscheduledCardOnFile"]);
        return body;
      }
      const items = Array.from({ length: r.int(4) }, () => validItem(r, 100 * (1 + r.int(500))));
      const amount = items.length > 0 ? items.reduce((sum, item) => sum + item.amount, 0) : 100 * (1 + r.int(1000));
      const body: Body = {
        type: "PayByLink",
        terminalIdentifier: merchant.terminalIdentifier,
        amount,
        currency: r.pick(["ISK", "EUR", "GBP"]),
        items,
      };
      if (r.chance(0.4)) body.description = randomString(r).slice(0, 500);
      if (r.chance(0.3)) body.culture = r.pick(["is", "en", null]);
      if (r.chance(0.3)) body.returnUrl = "https://shop.example.com/thanks";
      if (r.chance(0.3)) body.exactSalesCount = 1 + r.int(10);
      if (r.chance(0.3)) body.expiresAt = new Date(Date.now() + 86_400_000 * (1 + r.int(100))).toISOString();
      if (r.chance(0.3)) body.themeKey = merchant.themeKey;
      if (r.chance(0.3))
        body.shopperInfo = [
          { field: "EmailAddress", requirementType: "Required" },
          { field: "FullName", requirementType: "Prefilled", prefilledValue: "Jón" },
        ];
      return body;
    },
  };
}

export function updateModel(link: Body): EndpointModel {
  return { fields: UPDATE_FIELDS, ignored: UPDATE_IGNORED, base: () => structuredClone(link) };
}

export function disableModel(reference: string): EndpointModel {
  return { fields: DISABLE_FIELDS, ignored: [], base: () => ({ paymentLinkReference: reference }) };
}

/** A change that may or may not be valid on its own. */
export function noise(r: Random, model: EndpointModel, body: Body): void {
  const names = Object.keys(model.fields);
  switch (r.int(5)) {
    case 0: {
      const name = r.pick(names);
      if (!model.fields[name]!.required) delete body[name];
      break;
    }
    case 1:
      body[r.pick(names)] = randomValue(r);
      break;
    case 2:
      if (Array.isArray(body.items) && body.items.length > 0) body.items.reverse();
      break;
    case 3:
      if (model.ignored.length > 0) body[r.pick(model.ignored)] = randomValue(r);
      break;
    default:
      body.description = randomString(r);
  }
}

export const NESTED_LISTS = { items: ITEM_FIELDS, shopperInfo: SHOPPER_FIELDS } as const;

/** A change that makes any body invalid, whatever it held before. Returns its label. */
export function breakBody(r: Random, model: EndpointModel, body: Body): string {
  const names = Object.keys(model.fields);
  const nestedLists = Object.keys(NESTED_LISTS).filter((name) => name in model.fields) as Array<keyof typeof NESTED_LISTS>;
  for (;;) {
    switch (r.int(9)) {
      case 0: {
        const name = r.pick(names);
        const spec = model.fields[name]!;
        body[name] = wrongType(r, spec.kind, spec.nullable ?? false);
        return `wrong type at ${name}`;
      }
      case 1: {
        const required = names.filter((name) => model.fields[name]!.required);
        const name = r.pick(required);
        delete body[name];
        return `missing ${name}`;
      }
      case 2: {
        let key = r.chance(0.5) ? r.pick(PROTO_KEYS.filter((k) => k !== "__proto__")) : randomString(r).slice(0, 30);
        if (key in model.fields || model.ignored.includes(key)) key = `${key}_extra`;
        // defineProperty, so that even "__proto__" becomes an own key that JSON.stringify sends.
        Object.defineProperty(body, key, { value: randomValue(r), enumerable: true, configurable: true, writable: true });
        return `unknown field ${JSON.stringify(key)}`;
      }
      case 3: {
        const candidates = names.filter((name) => model.fields[name]!.invalid);
        const name = r.pick(candidates);
        body[name] = r.pick(model.fields[name]!.invalid!);
        return `invalid value at ${name}`;
      }
      case 4: {
        const name = r.pick(names.filter((n) => model.fields[n]!.kind === "string"));
        body[name] = r.pick(UNSTORABLE_STRINGS);
        return `unstorable text at ${name}`;
      }
      case 5: {
        if (nestedLists.length === 0) continue;
        const list = r.pick(nestedLists);
        const specs = NESTED_LISTS[list];
        const entry: Body =
          list === "items" ? validItem(r, 100) : { field: r.pick(["City", "Country", "Address"]), requirementType: "Optional" };
        const field = r.pick(Object.keys(specs));
        const spec = specs[field]!;
        const how = r.int(4);
        if (how === 0) entry[field] = wrongType(r, spec.kind, spec.nullable ?? false);
        else if (how === 1 && spec.required) delete entry[field];
        else if (how === 2 && spec.invalid) entry[field] = r.pick(spec.invalid);
        else entry[`${randomString(r).slice(0, 10)}_x`] = randomValue(r);
        body[list] = [...(Array.isArray(body[list]) ? body[list] : []), entry];
        return `bad ${list} entry (${field}, ${how})`;
      }
      case 6: {
        if (nestedLists.length === 0) continue;
        const list = r.pick(nestedLists);
        const count = list === "items" ? 201 + r.int(50) : 10 + r.int(5);
        body[list] = Array.from({ length: count }, (_, i) =>
          list === "items" ? validItem(r, 100) : { field: ["City", "Country"][i % 2], requirementType: "Optional" },
        );
        return `too many ${list}`;
      }
      case 7: {
        const name = r.pick([...names, ...model.ignored]);
        body[name] = nested(r, 40 + r.int(400), randomValue(r, 0));
        return `deep nesting at ${name}`;
      }
      default: {
        const name = r.pick(names.filter((n) => model.fields[n]!.kind === "array" || model.fields[n]!.kind === "object"));
        if (!name) continue;
        body[name] = Array.from({ length: 1 + r.int(3) }, () => wrongType(r, "object", false));
        return `non-object entries in ${name}`;
      }
    }
  }
}

/** A request that is broken below the JSON level: bytes, syntax, media type, size. */
export function rawCase(r: Random, model: EndpointModel): Case {
  const valid = JSON.stringify(model.base(r));
  switch (r.int(10)) {
    case 0:
      return { label: "truncated JSON", body: valid.slice(0, r.int(valid.length)), contentType: "application/json" };
    case 1: {
      const broken = r.pick([
        "{",
        "}",
        "[",
        "{'type': 'PayByLink'}",
        '{"type": "PayByLink",}',
        "{type: 1}",
        '{"amount": NaN}',
        '{"amount": Infinity}',
        '{"amount": 0x10}',
        "/* comment */ {}",
        '{"a":1}}',
        '{"a":1} {"b":2}',
        "undefined",
        "\u0000",
        '{"a":"\\x41"}',
        '{"a":"unterminated}',
        `${valid},`,
        valid.replace(/"/, "'"),
        `\ufeff${valid.replace(/:/, "=")}`,
      ]);
      return { label: `invalid JSON ${JSON.stringify(broken.slice(0, 30))}`, body: broken, contentType: "application/json" };
    }
    case 2: {
      const bytes = new Uint8Array(1 + r.int(300));
      for (let i = 0; i < bytes.length; i++) bytes[i] = r.int(256);
      return { label: "random bytes as JSON", body: bytes, contentType: "application/json" };
    }
    case 3: {
      const bytes = new TextEncoder().encode(valid);
      return { label: "body without a content type", body: new Uint8Array(bytes), contentType: null };
    }
    case 4: {
      const contentType = r.pick(WRONG_CONTENT_TYPES);
      const body = contentType.includes("form-urlencoded") ? "type=PayByLink&amount=48900&paymentLinkReference=x" : valid;
      return { label: `content type ${contentType}`, body, contentType };
    }
    case 5: {
      const poison = r.pick(['"__proto__": {"isAdmin": true}', '"__proto__": null', '"constructor": {"prototype": {"polluted": 1}}']);
      const text = valid.replace(/^\{/, `{${poison},`);
      return { label: `prototype pollution ${poison.slice(0, 20)}`, body: text, contentType: "application/json" };
    }
    case 6: {
      const text = valid.replace(/\[\{/, '[{"__proto__":{"amount":1},');
      if (text === valid)
        return { label: "nested __proto__ (top)", body: `{"__proto__":{"x":1},${valid.slice(1)}`, contentType: "application/json" };
      return { label: "nested __proto__ in a list", body: text, contentType: "application/json" };
    }
    case 7: {
      const top = r.pick(["[]", "[{}]", "0", "-1", '"PayByLink"', "true", "null", '""', JSON.stringify([JSON.parse(valid)])]);
      return { label: `top-level ${top.slice(0, 20)}`, body: top, contentType: "application/json" };
    }
    case 8: {
      if (r.chance(0.15)) {
        return {
          label: "body over 1 MiB",
          body: `{"description":"${"x".repeat(1024 * 1024 + r.int(1000))}"}`,
          contentType: "application/json",
        };
      }
      return { label: "empty body", body: "", contentType: r.pick(["application/json", null]) };
    }
    default: {
      // Duplicate keys: the parser keeps the last one, which is invalid here.
      const key = r.pick(Object.keys(model.fields));
      const spec = model.fields[key]!;
      const last = JSON.stringify(wrongType(r, spec.kind, spec.nullable ?? false));
      return {
        label: `duplicate key ${key}`,
        body: valid.replace(/\}$/, `,${JSON.stringify(key)}:${last}}`),
        contentType: "application/json",
      };
    }
  }
}

export function generateCases(r: Random, model: EndpointModel, count: number): Case[] {
  const cases: Case[] = [];
  for (let i = 0; i < count; i++) {
    const headers: Record<string, string> = {};
    if (r.chance(0.2))
      headers["idempotency-key"] = r.chance(0.9) ? `fuzz-${i}-${r.int(1e9)}` : r.pick(["a", "k".repeat(255), "shared-fuzz-key"]);
    if (r.chance(0.35)) {
      cases.push({ ...rawCase(r, model), headers });
      continue;
    }
    const body = model.base(r);
    const noiseCount = r.int(3);
    for (let n = 0; n < noiseCount; n++) noise(r, model, body);
    const label = breakBody(r, model, body);
    cases.push({ label, body: JSON.stringify(body), contentType: "application/json", headers });
  }
  return cases;
}
