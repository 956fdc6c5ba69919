import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  computePaymentSignature,
  hmacKeyFromHex,
  type PaymentWebhookMessage,
  paymentSignaturePayload,
  SIGNED_PAYMENT_FIELDS,
  type SignablePaymentMessage,
  verifyPaymentWebhook,
} from "../src/index.js";

// These vectors were computed by an independent implementation of the signature, not by this code.
const vectorsUrl = new URL("./vectors/webhook-hmac.json", import.meta.url);
interface Vector {
  name: string;
  hmacKey: string;
  message: SignablePaymentMessage;
  signedString: string;
  hmacSignature: string;
}
const vectorFile = JSON.parse(readFileSync(vectorsUrl, "utf8")) as { fieldOrder: string[]; vectors: Vector[] };

describe("worked examples (docs/webhooks.md#the-hmacsignature)", () => {
  it("use the field order this SDK signs", () => {
    assert.deepEqual(vectorFile.fieldOrder, [...SIGNED_PAYMENT_FIELDS]);
    assert.ok(vectorFile.vectors.length >= 5);
  });

  for (const vector of vectorFile.vectors) {
    it(vector.name, () => {
      assert.equal(paymentSignaturePayload(vector.message), vector.signedString);
      assert.equal(computePaymentSignature(vector.message, vector.hmacKey), vector.hmacSignature);
      const verified = verifyPaymentWebhook({ ...vector.message, hmacSignature: vector.hmacSignature }, vector.hmacKey);
      assert.deepEqual(verified, {
        valid: true,
        message: { ...vector.message, hmacSignature: vector.hmacSignature },
      });
      // Raw JSON text, as a receiver gets it, verifies too.
      const rawBody = JSON.stringify({ ...vector.message, hmacSignature: vector.hmacSignature });
      assert.equal(verifyPaymentWebhook(rawBody, vector.hmacKey).valid, true);
      assert.equal(verifyPaymentWebhook(Buffer.from(rawBody), vector.hmacKey).valid, true);
    });
  }
});

// ----- random messages against openssl ------------------------------------------------------

/** A small seeded PRNG (mulberry32) so a failure can be reproduced from the printed seed. */
function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(options: readonly T[]): T => options[int(0, options.length - 1)] as T;
  return { next, int, pick };
}
type Random = ReturnType<typeof createRandom>;

// Code point ranges that exercise every UTF-8 length: ASCII (with ':' on purpose), Latin-1 and
// Icelandic letters, CJK, and astral emoji/symbols (4 bytes, surrogate pairs in JS).
const CODE_POINT_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x20, 0x7e],
  [0x3a, 0x3a],
  [0xa0, 0x17f],
  [0x4e00, 0x9fff],
  [0x1f300, 0x1faff],
  [0x10000, 0x1034f],
];

function randomText(random: Random): string {
  const length = random.int(0, 24);
  let text = "";
  for (let i = 0; i < length; i++) {
    const [low, high] = random.pick(CODE_POINT_RANGES);
    text += String.fromCodePoint(random.int(low, high));
  }
  return text;
}

function randomHexKey(random: Random): string {
  // 1..200 digits: odd lengths, and keys longer than the 64-byte HMAC block (hashed first).
  const length = random.int(1, 200);
  const digits = random.next() < 0.3 ? "0123456789ABCDEF" : random.next() < 0.5 ? "0123456789abcdef" : "0123456789abcdefABCDEF";
  let key = "";
  for (let i = 0; i < length; i++) key += digits[random.int(0, digits.length - 1)];
  return key;
}

function randomMessage(random: Random): SignablePaymentMessage {
  const message: Record<string, string | null | undefined> = {};
  for (const field of SIGNED_PAYMENT_FIELDS) {
    const roll = random.next();
    message[field] = roll < 0.1 ? null : roll < 0.15 ? undefined : roll < 0.2 ? "" : randomText(random);
  }
  return message;
}

/** HMAC-SHA256 computed by openssl from the key digits and payload, then Base64 by openssl. */
function opensslSignature(payload: string, hexKey: string): Promise<string> {
  const paddedKey = hexKey.length % 2 === 1 ? `${hexKey}0` : hexKey;
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", 'openssl dgst -sha256 -mac HMAC -macopt "hexkey:$HMAC_KEY" -binary | openssl base64 -A'], {
      env: { ...process.env, HMAC_KEY: paddedKey },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0 && stderr === "") resolve(stdout.trim());
      else reject(new Error(`openssl failed (${code}): ${stderr}`));
    });
    child.stdin.end(Buffer.from(payload, "utf8"));
  });
}

async function mapWithConcurrency<T, R>(inputs: readonly T[], limit: number, task: (input: T) => Promise<R>) {
  const results: R[] = new Array(inputs.length);
  let nextIndex = 0;
  const worker = async () => {
    while (nextIndex < inputs.length) {
      const index = nextIndex++;
      results[index] = await task(inputs[index] as T);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

describe("random messages against openssl", () => {
  it("agree on 320 random messages and keys", async () => {
    const seed = Number(process.env.SIGNATURE_FUZZ_SEED ?? Date.now() % 2 ** 31);
    const random = createRandom(seed);
    const cases = Array.from({ length: 320 }, () => ({ message: randomMessage(random), hexKey: randomHexKey(random) }));
    // The payload is rebuilt here rather than taken from the SDK, so openssl checks the whole chain.
    const independentPayload = (message: SignablePaymentMessage) => SIGNED_PAYMENT_FIELDS.map((field) => message[field] ?? "").join(":");

    const expected = await mapWithConcurrency(cases, 16, ({ message, hexKey }) => opensslSignature(independentPayload(message), hexKey));
    cases.forEach(({ message, hexKey }, index) => {
      assert.equal(
        computePaymentSignature(message, hexKey),
        expected[index],
        `seed ${seed}, case ${index}: ${JSON.stringify(message)} key ${hexKey}`,
      );
    });
  });
});

// ----- what the signature protects ----------------------------------------------------------

const KEY = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

function signedMessage(): PaymentWebhookMessage {
  const unsigned = {
    checkoutReference: "k3j9x0aa21pq",
    payfacReference: "ABCD1234EFGH5678",
    merchantReference: "pl7Qm2xZk9",
    amount: "48900",
    currency: "ISK",
    reason: "123456:1111:03/2030",
    success: "true",
    additionalData: { eventType: "Authorization", cardSummary: "1111", authCode: "123456" },
  };
  return { ...unsigned, hmacSignature: computePaymentSignature(unsigned, KEY) };
}

describe("verifyPaymentWebhook", () => {
  it("accepts a signed message", () => {
    const message = signedMessage();
    assert.deepEqual(verifyPaymentWebhook(message, KEY), { valid: true, message });
  });

  for (const field of SIGNED_PAYMENT_FIELDS) {
    it(`rejects a message whose ${field} was changed`, () => {
      const message = signedMessage();
      const tampered = { ...message, [field]: `${message[field] ?? ""}x` };
      const result = verifyPaymentWebhook(tampered, KEY);
      assert.equal(result.valid, false);
      assert.equal(!result.valid && result.reason, "signature_mismatch");
    });
  }

  it("rejects two fields swapped, since the order is signed", () => {
    const message = signedMessage();
    const swapped = { ...message, checkoutReference: message.merchantReference, merchantReference: message.checkoutReference };
    assert.equal(verifyPaymentWebhook(swapped, KEY).valid, false);
  });

  it("does not cover additionalData", () => {
    const message = signedMessage();
    const changed = { ...message, additionalData: { eventType: "Tokenization", token: "ABCDEFGH12345678" } };
    assert.equal(verifyPaymentWebhook(changed, KEY).valid, true);
    const { additionalData: _dropped, ...without } = message;
    assert.equal(verifyPaymentWebhook(without, KEY).valid, true);
  });

  it("rejects the wrong key, and a key that differs only by padding", () => {
    const message = signedMessage();
    const otherKey = `${KEY.slice(0, -1)}9`;
    assert.equal(verifyPaymentWebhook(message, otherKey).valid, false);
    // "abc" and "abc0" are the same key bytes by docs/webhooks.md#the-hmacsignature step 5; "abc1" is not.
    const short = { ...message, hmacSignature: computePaymentSignature(message, "abc") };
    assert.equal(verifyPaymentWebhook(short, "abc0").valid, true);
    assert.equal(verifyPaymentWebhook(short, "abc1").valid, false);
  });

  it("treats an uppercase key like its lowercase form", () => {
    const message = signedMessage();
    assert.equal(verifyPaymentWebhook(message, KEY.toUpperCase()).valid, true);
  });

  it("treats absent nullable fields as null", () => {
    const unsigned = { payfacReference: "P", amount: "100", currency: "EUR", success: "false" };
    const hmacSignature = computePaymentSignature(unsigned, KEY);
    const result = verifyPaymentWebhook({ ...unsigned, hmacSignature }, KEY);
    assert.deepEqual(result, {
      valid: true,
      message: { ...unsigned, checkoutReference: null, merchantReference: null, reason: null, hmacSignature },
    });
  });

  it("accepts only the canonical Base64 of the signature", () => {
    const message = signedMessage();
    assert.equal(verifyPaymentWebhook({ ...message, hmacSignature: ` ${message.hmacSignature}` }, KEY).valid, false);
    assert.equal(verifyPaymentWebhook({ ...message, hmacSignature: message.hmacSignature.replace(/=$/, "") }, KEY).valid, false);
    const urlSafe = message.hmacSignature.replaceAll("+", "-").replaceAll("/", "_");
    if (urlSafe !== message.hmacSignature) assert.equal(verifyPaymentWebhook({ ...message, hmacSignature: urlSafe }, KEY).valid, false);
  });

  const failures: Array<[string, unknown, string, string]> = [
    ["malformed JSON", '{"payfacReference":', KEY, "malformed_json"],
    ["an empty body", "", KEY, "malformed_json"],
    ["a JSON array", "[1,2]", KEY, "wrong_type"],
    ["JSON null", "null", KEY, "wrong_type"],
    ["no signature", { ...signedMessage(), hmacSignature: undefined }, KEY, "missing_signature"],
    ["an empty signature", { ...signedMessage(), hmacSignature: "" }, KEY, "missing_signature"],
    ["a numeric signature", { ...signedMessage(), hmacSignature: 12 }, KEY, "wrong_type"],
    ["no payfacReference", { ...signedMessage(), payfacReference: undefined }, KEY, "missing_field"],
    ["a null amount", { ...signedMessage(), amount: null }, KEY, "missing_field"],
    ["a numeric amount", { ...signedMessage(), amount: 48900 }, KEY, "wrong_type"],
    ["a boolean success", { ...signedMessage(), success: true }, KEY, "wrong_type"],
    ["additionalData as text", { ...signedMessage(), additionalData: "x" }, KEY, "wrong_type"],
    ["a non-hex key", signedMessage(), "not-a-key", "bad_key"],
    ["an empty key", signedMessage(), "", "bad_key"],
  ];
  for (const [name, input, key, reason] of failures) {
    it(`reports ${reason} for ${name}`, () => {
      const result = verifyPaymentWebhook(input as object, key);
      assert.equal(result.valid, false);
      assert.equal(!result.valid && result.reason, reason);
      assert.ok(!result.valid && result.detail.length > 0);
    });
  }

  it("never echoes the key in its error detail", () => {
    const secretLookingKey = `${KEY}zz`;
    const result = verifyPaymentWebhook(signedMessage(), secretLookingKey);
    assert.ok(!result.valid && !result.detail.includes(KEY));
  });

  it("never throws on garbage", () => {
    const random = createRandom(20240601);
    const garbage = (depth: number): unknown => {
      switch (random.int(0, 9)) {
        case 0:
          return null;
        case 1:
          return undefined;
        case 2:
          return random.next() * 1e6 - 5e5;
        case 3:
          return random.next() < 0.5;
        case 4:
          return randomText(random);
        case 5:
          return depth > 2 ? [] : Array.from({ length: random.int(0, 3) }, () => garbage(depth + 1));
        case 6:
          return JSON.stringify(garbage(depth + 1)) ?? "";
        case 7:
          return `${randomText(random).slice(0, random.int(0, 5))}{`;
        default: {
          // Objects shaped like a message, with random values where the strings belong.
          const message: Record<string, unknown> = { ...signedMessage() };
          for (const field of [...SIGNED_PAYMENT_FIELDS, "hmacSignature", "additionalData"]) {
            if (random.next() < 0.3) message[field] = depth > 2 ? null : garbage(depth + 1);
          }
          return random.next() < 0.5 ? message : JSON.stringify(message);
        }
      }
    };
    const keys: unknown[] = [KEY, "abc", "", "xyz", 42, null, undefined, "ÆÐ", KEY.toUpperCase()];
    for (let i = 0; i < 500; i++) {
      const input = garbage(0);
      const key = random.pick(keys);
      const result = verifyPaymentWebhook(input as object, key as string);
      assert.equal(typeof result.valid, "boolean");
      if (!result.valid) assert.equal(typeof result.detail, "string");
    }
    // A getter that throws is still reported, not thrown.
    const hostile = Object.defineProperty({ ...signedMessage() }, "amount", {
      get() {
        throw new Error("boom");
      },
      enumerable: true,
    });
    const result = verifyPaymentWebhook(hostile, KEY);
    assert.equal(!result.valid && result.reason, "wrong_type");
  });
});

describe("computePaymentSignature input checks", () => {
  it("throws a TypeError for a key that is not hex", () => {
    const message = signedMessage();
    assert.throws(() => computePaymentSignature(message, "xyz"), { name: "TypeError", message: /hex digits/ });
    assert.throws(() => computePaymentSignature(message, ""), { name: "TypeError", message: /empty/ });
    assert.throws(() => computePaymentSignature(message, "ab cd"), TypeError);
    assert.throws(() => computePaymentSignature(message, 1234 as unknown as string), TypeError);
  });

  it("throws a TypeError for a field that is not text", () => {
    const message = { ...signedMessage(), amount: 48900 } as unknown as SignablePaymentMessage;
    assert.throws(() => computePaymentSignature(message, KEY), { name: "TypeError", message: /amount/ });
  });

  it("pads an odd-length key with a trailing 0", () => {
    assert.deepEqual(hmacKeyFromHex("abc"), Buffer.from([0xab, 0xc0]));
    assert.deepEqual(hmacKeyFromHex("ABC0"), Buffer.from([0xab, 0xc0]));
  });
});
