import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { runSignatureCli, signatureCliReadsStdin } from "../src/index.js";

// First vector of test/vectors/webhook-hmac.json (computed independently).
const KEY = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const MESSAGE = {
  checkoutReference: "k3j9x0aa21pq",
  payfacReference: "ABCD1234EFGH5678",
  merchantReference: "pl7Qm2xZk9",
  amount: "48900",
  currency: "ISK",
  reason: "123456:1111:03/2030",
  success: "true",
  additionalData: { eventType: "Authorization" },
};
const SIGNATURE = "9w/94u5wFCXIMiiBCjruqOrM4R7fWVr61WcFMvSEGuc=";
const SIGNED = JSON.stringify({ ...MESSAGE, hmacSignature: SIGNATURE });

describe("sign", () => {
  it("prints the signature and a newline", () => {
    assert.deepEqual(runSignatureCli(["sign", "--key", KEY], JSON.stringify(MESSAGE)), {
      exitCode: 0,
      stdout: `${SIGNATURE}\n`,
      stderr: "",
    });
  });

  it("accepts --key=HEX, a byte order mark and an hmacSignature already present", () => {
    const result = runSignatureCli([`sign`, `--key=${KEY}`], `\uFEFF${SIGNED}\n`);
    assert.equal(result.stdout, `${SIGNATURE}\n`);
  });

  const badInputs: Array<[string, string[], string, RegExp]> = [
    ["malformed JSON", ["sign", "--key", KEY], '{"amount": ', /not valid JSON/],
    ["empty stdin", ["sign", "--key", KEY], "  \n", /got nothing/],
    ["a JSON array", ["sign", "--key", KEY], "[]", /must be a JSON object/],
    ["no --key", ["sign"], JSON.stringify(MESSAGE), /--key <hex> is required/],
    ["--key without value", ["sign", "--key"], JSON.stringify(MESSAGE), /--key needs a value/],
    ["a non-hex key", ["sign", "--key", "xyz"], JSON.stringify(MESSAGE), /hex digits/],
    [
      "a missing payfacReference",
      ["sign", "--key", KEY],
      JSON.stringify({ ...MESSAGE, payfacReference: undefined }),
      /payfacReference is required/,
    ],
    ["a numeric amount", ["sign", "--key", KEY], JSON.stringify({ ...MESSAGE, amount: 48900 }), /amount must be a string/],
    ["an unknown argument", ["sign", "--key", KEY, "--verbose"], JSON.stringify(MESSAGE), /unexpected argument "--verbose"/],
  ];
  for (const [name, argv, stdin, message] of badInputs) {
    it(`exits 2 on ${name}`, () => {
      const result = runSignatureCli(argv, stdin);
      assert.equal(result.exitCode, 2);
      assert.equal(result.stdout, "");
      assert.match(result.stderr, /^error: /);
      assert.match(result.stderr, message);
    });
  }
});

describe("verify", () => {
  it("exits 0 and prints valid for a good signature", () => {
    assert.deepEqual(runSignatureCli(["verify", "--key", KEY], SIGNED), { exitCode: 0, stdout: "valid\n", stderr: "" });
  });

  it("exits 1 and prints the reason for a wrong signature, a tampered field or the wrong key", () => {
    const tampered = JSON.stringify({ ...MESSAGE, amount: "4890000", hmacSignature: SIGNATURE });
    for (const [argv, stdin] of [
      [["verify", "--key", KEY], tampered],
      [["verify", "--key", KEY.replace("9f", "8f")], SIGNED],
      [["verify", "--key", KEY], JSON.stringify({ ...MESSAGE, hmacSignature: "bm90IGEgc2lnbmF0dXJl" })],
    ] as const) {
      assert.deepEqual(runSignatureCli(argv, stdin), { exitCode: 1, stdout: "invalid: signature_mismatch\n", stderr: "" });
    }
  });

  const badInputs: Array<[string, string[], string, RegExp]> = [
    ["malformed JSON", ["verify", "--key", KEY], "{not json", /not valid JSON/],
    ["no --key", ["verify"], SIGNED, /--key <hex> is required/],
    ["a non-hex key", ["verify", "--key", "12g4"], SIGNED, /non-hex character at position 3/],
    ["a missing hmacSignature", ["verify", "--key", KEY], JSON.stringify(MESSAGE), /no hmacSignature/],
    [
      "a missing signed field",
      ["verify", "--key", KEY],
      JSON.stringify({ ...MESSAGE, success: null, hmacSignature: SIGNATURE }),
      /success is required/,
    ],
  ];
  for (const [name, argv, stdin, message] of badInputs) {
    it(`exits 2 on ${name}`, () => {
      const result = runSignatureCli(argv, stdin);
      assert.equal(result.exitCode, 2);
      assert.match(result.stderr, message);
    });
  }
});

describe("usage", () => {
  it("prints help with exit 0, and usage with exit 2 for no or an unknown command", () => {
    const help = runSignatureCli(["--help"], "");
    assert.equal(help.exitCode, 0);
    assert.match(help.stdout, /sign --key <hex>/);
    assert.equal(runSignatureCli(["verify", "-h"], "").exitCode, 0);
    const none = runSignatureCli([], "");
    assert.equal(none.exitCode, 2);
    assert.match(none.stderr, /a command is required[\s\S]*Usage:/);
    const unknown = runSignatureCli(["hash"], "");
    assert.equal(unknown.exitCode, 2);
    assert.match(unknown.stderr, /unknown command "hash"/);
  });

  it("names the calling program in the usage text", () => {
    assert.match(runSignatureCli(["help"], "", { programName: "paylink" }).stdout, /^ {2}paylink sign --key/m);
  });

  it("tells a binary when to read stdin", () => {
    assert.equal(signatureCliReadsStdin(["sign", "--key", KEY]), true);
    assert.equal(signatureCliReadsStdin(["verify", "--help"]), false);
    assert.equal(signatureCliReadsStdin([]), false);
  });
});

describe("the built paylink-sdk binary", () => {
  const binPath = fileURLToPath(new URL("../dist/bin.js", import.meta.url));

  it("signs and verifies a message on stdin as a real process", {
    skip: !existsSync(binPath) && "run npm run build -w paylink-sdk first",
  }, () => {
    const signed = spawnSync(process.execPath, [binPath, "sign", "--key", KEY], { input: JSON.stringify(MESSAGE), encoding: "utf8" });
    assert.equal(signed.stderr, "");
    assert.equal(signed.status, 0);
    assert.equal(signed.stdout, `${SIGNATURE}\n`);

    const verified = spawnSync(process.execPath, [binPath, "verify", "--key", KEY], { input: SIGNED, encoding: "utf8" });
    assert.equal(verified.status, 0);
    assert.equal(verified.stdout, "valid\n");

    const malformed = spawnSync(process.execPath, [binPath, "verify", "--key", KEY], { input: "{", encoding: "utf8" });
    assert.equal(malformed.status, 2);
    assert.match(malformed.stderr, /^error: the message is not valid JSON/);
  });
});
