#!/usr/bin/env node
// The `paylink-sdk` command: `sign` / `verify` a payment webhook message read on stdin.
import { runSignatureCli, signatureCliReadsStdin } from "./cli.js";

const argv = process.argv.slice(2);
let stdin = "";
if (signatureCliReadsStdin(argv)) {
  if (process.stdin.isTTY) process.stderr.write("Reading the message from stdin; end it with Ctrl-D.\n");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  stdin = Buffer.concat(chunks).toString("utf8");
}
const result = runSignatureCli(argv, stdin);
process.stdout.write(result.stdout);
process.stderr.write(result.stderr);
process.exitCode = result.exitCode;
