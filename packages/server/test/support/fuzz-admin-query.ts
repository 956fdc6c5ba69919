// Generated query strings for the admin delivery log (GET /admin/v1/merchants/{id}/deliveries)
// and the merchants list (GET /admin/v1/merchants, whose only parameters are page and pageSize):
// a few parameters that may be valid, then one that is certainly not.
import { alnum, BROKEN_PERCENT, percentEncode, type Random, randomString } from "./fuzz.ts";
import { type AdminCase, adminAuth, type Context, merchantSegment } from "./fuzz-admin.ts";

// The delivery log's query string: page (0…1 000 000), pageSize (1…100), webhookId (1…64), state.

export type QueryParam = [key: string, value: string, raw?: boolean];

export const QUERY_BREAKERS: Array<(r: Random) => { label: string; params: QueryParam[] }> = [
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

export function queryNoise(r: Random, ctx: Context): QueryParam {
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

export function encodeQuery(r: Random, params: QueryParam[]): string {
  return params
    .map(([key, value, raw]) => {
      const encodedKey = r.chance(0.1)
        ? [...Buffer.from(key, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("")
        : percentEncode(key, true);
      return `${encodedKey}=${raw ? value : percentEncode(value, r.chance(0.5))}`;
    })
    .join("&");
}

/** `list` is the list's path for a merchant id: the delivery log by default, or the merchants list (which ignores the id). */
export function generateQueryCases(
  r: Random,
  ctx: Context,
  token: string,
  count: number,
  list: (merchantId: string) => string = (merchantId) => `/admin/v1/merchants/${merchantId}/deliveries`,
): AdminCase[] {
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
      path: `${list(merchant.id)}?${query}`,
      headers: auth.headers,
      mayPass: false,
    });
  }
  return cases;
}
