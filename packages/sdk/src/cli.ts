// `sign` and `verify` for payment webhook messages, as a pure function of arguments and stdin so
// that it is testable and reusable: the SDK's own `paylink-sdk` binary and the server's
// `paylink sign|verify` both call it.
import { computePaymentSignature, verifyPaymentWebhook } from "./signature.js";
import { describeHexKeyProblem, readPaymentMessage } from "./webhook-input.js";

export interface CliResult {
  /** 0 success (signed, or valid), 1 invalid signature, 2 bad input or usage. */
  exitCode: 0 | 1 | 2;
  stdout: string;
  stderr: string;
}

export interface SignatureCliOptions {
  /** Shown in the usage text; `paylink-sdk` by default. */
  programName?: string;
}

/** Whether `argv` asks for a command that reads a message on stdin (so a binary knows to read it). */
export function signatureCliReadsStdin(argv: readonly string[]): boolean {
  const [command, ...rest] = argv;
  return (command === "sign" || command === "verify") && !rest.some(isHelpFlag);
}

/**
 * Runs `sign --key <hex>` or `verify --key <hex>` on a message read from stdin.
 *
 * - `sign` prints the message's `hmacSignature` (docs/webhooks.md#the-hmacsignature).
 * - `verify` prints `valid` (exit 0) or `invalid: <reason>` (exit 1).
 * - Bad input (malformed JSON, missing or non-hex key, missing fields) exits 2 with a message on stderr.
 */
export function runSignatureCli(argv: readonly string[], stdin: string, options: SignatureCliOptions = {}): CliResult {
  const usage = usageText(options.programName ?? "paylink-sdk");
  const [command, ...rest] = argv;
  if (command === undefined) return badInput("a command is required", usage);
  if (isHelpFlag(command) || rest.some(isHelpFlag)) return { exitCode: 0, stdout: usage, stderr: "" };
  if (command !== "sign" && command !== "verify") return badInput(`unknown command "${command}"`, usage);

  const parsedOptions = parseKeyOption(rest);
  if (!parsedOptions.ok) return badInput(parsedOptions.problem, usage);
  const { hexKey } = parsedOptions;
  const keyProblem = describeHexKeyProblem(hexKey);
  if (keyProblem !== undefined) return badInput(`--key: ${keyProblem}`);

  // Files saved by some Windows editors start with a byte order mark, which JSON.parse refuses.
  const input = stdin.replace(/^\uFEFF/, "");
  if (input.trim() === "") return badInput("expected a payment webhook message (JSON) on stdin, got nothing");

  if (command === "sign") {
    const reading = readPaymentMessage(input, false);
    if (!reading.ok) return badInput(reading.detail);
    return { exitCode: 0, stdout: `${computePaymentSignature(reading.value, hexKey)}\n`, stderr: "" };
  }

  const result = verifyPaymentWebhook(input, hexKey);
  if (result.valid) return { exitCode: 0, stdout: "valid\n", stderr: "" };
  if (result.reason === "signature_mismatch") {
    return { exitCode: 1, stdout: `invalid: ${result.reason}\n`, stderr: "" };
  }
  return badInput(result.detail);
}

function parseKeyOption(args: readonly string[]): { ok: true; hexKey: string } | { ok: false; problem: string } {
  let hexKey: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === "--key") {
      const value = args[index + 1];
      if (value === undefined || value.startsWith("--")) return { ok: false, problem: "--key needs a value: --key <hex>" };
      hexKey = value;
      index++;
    } else if (arg.startsWith("--key=")) {
      hexKey = arg.slice("--key=".length);
    } else {
      return { ok: false, problem: `unexpected argument "${arg}"` };
    }
  }
  if (hexKey === undefined) return { ok: false, problem: "--key <hex> is required (the webhook's HMAC key)" };
  return { ok: true, hexKey };
}

function isHelpFlag(arg: string): boolean {
  return arg === "--help" || arg === "-h" || arg === "help";
}

function badInput(problem: string, usage?: string): CliResult {
  return { exitCode: 2, stdout: "", stderr: `error: ${problem}\n${usage === undefined ? "" : `\n${usage}`}` };
}

function usageText(programName: string): string {
  return [
    "Usage:",
    `  ${programName} sign --key <hex>     read a payment webhook message (JSON) on stdin and print its hmacSignature`,
    `  ${programName} verify --key <hex>   read a message with hmacSignature on stdin and check it`,
    "",
    "verify exits 0 when the signature is valid, 1 when it is not, and 2 for bad input.",
    "",
  ].join("\n");
}
