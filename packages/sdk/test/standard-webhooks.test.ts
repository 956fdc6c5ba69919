import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { signStandardWebhook, standardWebhookHeaders, verifyStandardWebhook } from "../src/index.js";

const KEY = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const BODY = '{"checkoutReference":"c1","payfacReference":"Þ","success":"true"}';
const ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const TIMESTAMP = 1674087231;
const AT_TIMESTAMP = new Date(TIMESTAMP * 1000);

describe("Standard Webhooks signing", () => {
  it("matches vectors computed with openssl", () => {
    // printf '%s' "$ID.$TIMESTAMP.$BODY" | openssl dgst -sha256 -mac HMAC -macopt hexkey:$KEY -binary | openssl base64 -A
    assert.equal(signStandardWebhook({ id: ID, timestamp: TIMESTAMP, body: BODY }, KEY), "v1,FWr5ISut6LNzgB3W7/NVLwAHKp/tcrz7Av9/V+grBiI=");
    // An odd-length key is padded as in docs/webhooks.md#the-hmacsignature ("abc" → bytes ab c0).
    assert.equal(
      signStandardWebhook({ id: "wh_1", timestamp: 1700000000, body: "hello" }, "abc"),
      "v1,M3lcYRsDxORthxSAAcsnF0y5Xa2dCR83YD0YfCZRfOw=",
    );
  });

  it("signs a Buffer body like the same text", () => {
    const fromText = signStandardWebhook({ id: ID, timestamp: TIMESTAMP, body: BODY }, KEY);
    assert.equal(signStandardWebhook({ id: ID, timestamp: TIMESTAMP, body: Buffer.from(BODY) }, KEY), fromText);
  });

  it("builds the three headers", () => {
    assert.deepEqual(standardWebhookHeaders(ID, TIMESTAMP, BODY, KEY), {
      "webhook-id": ID,
      "webhook-timestamp": String(TIMESTAMP),
      "webhook-signature": "v1,FWr5ISut6LNzgB3W7/NVLwAHKp/tcrz7Av9/V+grBiI=",
    });
  });

  it("refuses a timestamp in milliseconds or with a fraction, and a non-hex key", () => {
    assert.throws(() => signStandardWebhook({ id: ID, timestamp: 1.5, body: BODY }, KEY), TypeError);
    assert.throws(() => signStandardWebhook({ id: ID, timestamp: -1, body: BODY }, KEY), TypeError);
    assert.throws(() => signStandardWebhook({ id: ID, timestamp: TIMESTAMP, body: BODY }, "nothex"), TypeError);
  });
});

describe("verifyStandardWebhook", () => {
  const headers = standardWebhookHeaders(ID, TIMESTAMP, BODY, KEY);

  it("accepts its own signature", () => {
    assert.deepEqual(verifyStandardWebhook(headers, BODY, KEY, { now: AT_TIMESTAMP }), {
      valid: true,
      webhookId: ID,
      timestamp: TIMESTAMP,
    });
  });

  it("reads header names case-insensitively, from a plain object or a Headers instance", () => {
    const shouted = {
      "Webhook-Id": headers["webhook-id"],
      "WEBHOOK-TIMESTAMP": headers["webhook-timestamp"],
      "webhook-Signature": headers["webhook-signature"],
    };
    assert.equal(verifyStandardWebhook(shouted, BODY, KEY, { now: AT_TIMESTAMP }).valid, true);
    assert.equal(verifyStandardWebhook(new Headers(shouted), BODY, KEY, { now: AT_TIMESTAMP }).valid, true);
    assert.equal(verifyStandardWebhook(new Map(Object.entries(headers)), BODY, KEY, { now: AT_TIMESTAMP }).valid, true);
  });

  it("accepts a Buffer body", () => {
    assert.equal(verifyStandardWebhook(headers, Buffer.from(BODY), KEY, { now: AT_TIMESTAMP }).valid, true);
  });

  it("accepts any matching entry of several signatures, in any order", () => {
    const other = signStandardWebhook({ id: ID, timestamp: TIMESTAMP, body: BODY }, "00ff");
    for (const signatureHeader of [
      `${other} ${headers["webhook-signature"]}`,
      `${headers["webhook-signature"]} ${other}`,
      `v1a,c29tZXRoaW5nIGVsc2U= ${headers["webhook-signature"]}`,
      `${other}, ${headers["webhook-signature"]}`,
    ]) {
      const result = verifyStandardWebhook({ ...headers, "webhook-signature": signatureHeader }, BODY, KEY, {
        now: AT_TIMESTAMP,
      });
      assert.equal(result.valid, true, signatureHeader);
    }
    const withArray = { ...headers, "webhook-signature": [other, headers["webhook-signature"]] };
    assert.equal(verifyStandardWebhook(withArray, BODY, KEY, { now: AT_TIMESTAMP }).valid, true);
  });

  it("rejects when no entry matches", () => {
    const other = signStandardWebhook({ id: ID, timestamp: TIMESTAMP, body: BODY }, "00ff");
    const result = verifyStandardWebhook({ ...headers, "webhook-signature": `${other} v2,abc` }, BODY, KEY, {
      now: AT_TIMESTAMP,
    });
    assert.equal(!result.valid && result.reason, "bad_signature");
    const noV1 = verifyStandardWebhook({ ...headers, "webhook-signature": "v1a,abc" }, BODY, KEY, { now: AT_TIMESTAMP });
    assert.equal(!noV1.valid && noV1.reason, "bad_signature");
  });

  it("applies the tolerance both ways, 300 s by default", () => {
    const at = (offsetSeconds: number, toleranceSeconds?: number) =>
      verifyStandardWebhook(headers, BODY, KEY, {
        now: new Date((TIMESTAMP + offsetSeconds) * 1000),
        ...(toleranceSeconds === undefined ? {} : { toleranceSeconds }),
      });
    assert.equal(at(300).valid, true);
    assert.equal(at(-300).valid, true);
    const tooOld = at(301);
    assert.equal(!tooOld.valid && tooOld.reason, "timestamp_too_old");
    const tooNew = at(-301);
    assert.equal(!tooNew.valid && tooNew.reason, "timestamp_too_new");
    assert.equal(at(3600, 3600).valid, true);
    const strict = at(2, 1);
    assert.equal(!strict.valid && strict.reason, "timestamp_too_old");
    assert.equal(at(0, 0).valid, true);
  });

  it("uses the current time by default", () => {
    const now = Math.floor(Date.now() / 1000);
    const fresh = standardWebhookHeaders(ID, now, BODY, KEY);
    assert.equal(verifyStandardWebhook(fresh, BODY, KEY).valid, true);
    const stale = verifyStandardWebhook(headers, BODY, KEY);
    assert.equal(!stale.valid && stale.reason, "timestamp_too_old");
  });

  it("rejects a tampered body, id or timestamp", () => {
    const options = { now: AT_TIMESTAMP };
    const tamperedBody = verifyStandardWebhook(headers, BODY.replace("true", "fals"), KEY, options);
    assert.equal(!tamperedBody.valid && tamperedBody.reason, "bad_signature");
    const tamperedId = verifyStandardWebhook({ ...headers, "webhook-id": `${ID}x` }, BODY, KEY, options);
    assert.equal(!tamperedId.valid && tamperedId.reason, "bad_signature");
    const shifted = verifyStandardWebhook({ ...headers, "webhook-timestamp": String(TIMESTAMP + 1) }, BODY, KEY, options);
    assert.equal(!shifted.valid && shifted.reason, "bad_signature");
    const wrongKey = verifyStandardWebhook(headers, BODY, KEY.replace("9f", "8f"), options);
    assert.equal(!wrongKey.valid && wrongKey.reason, "bad_signature");
  });

  it("reports each missing header", () => {
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"] as const) {
      const { [name]: _removed, ...rest } = headers;
      const result = verifyStandardWebhook(rest, BODY, KEY, { now: AT_TIMESTAMP });
      assert.equal(!result.valid && result.reason, "missing_header");
      assert.match(!result.valid ? result.detail : "", new RegExp(name));
      const blank = verifyStandardWebhook({ ...headers, [name]: " " }, BODY, KEY, { now: AT_TIMESTAMP });
      assert.equal(!blank.valid && blank.reason, "missing_header");
    }
  });

  it("reports bad timestamps, keys and bodies without throwing", () => {
    const options = { now: AT_TIMESTAMP };
    for (const timestamp of ["soon", "1.5", "-1", "1e9", "0x10"]) {
      const result = verifyStandardWebhook({ ...headers, "webhook-timestamp": timestamp }, BODY, KEY, options);
      assert.equal(!result.valid && result.reason, "invalid_timestamp", timestamp);
    }
    const badKey = verifyStandardWebhook(headers, BODY, "zz", options);
    assert.equal(!badKey.valid && badKey.reason, "bad_key");
    const parsedBody = verifyStandardWebhook(headers, JSON.parse(BODY) as string, KEY, options);
    assert.equal(!parsedBody.valid && parsedBody.reason, "wrong_type");
    const noHeaders = verifyStandardWebhook(null as unknown as Headers, BODY, KEY, options);
    assert.equal(!noHeaders.valid && noHeaders.reason, "missing_header");
  });

  it("throws only for a nonsensical tolerance", () => {
    assert.throws(() => verifyStandardWebhook(headers, BODY, KEY, { toleranceSeconds: Number.NaN }), RangeError);
    assert.throws(() => verifyStandardWebhook(headers, BODY, KEY, { toleranceSeconds: -1 }), RangeError);
  });
});
