// SMTP_URL=smtp://… upgrades with STARTTLS (docs/operations.md#e-mail): a real smtp-server with a
// self-signed certificate that refuses mail before STARTTLS gets the message over TLS when the
// sending process trusts the certificate (NODE_EXTRA_CA_CERTS, as an operator with a private CA
// would set it), and nothing when it does not: the certificate is checked, never skipped.
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

const SENDER = new URL("./support/send-one.ts", import.meta.url).pathname;

describe("SMTP with STARTTLS required", () => {
  let dir: string;
  let server: SMTPServer;
  let port: number;
  const received: Array<{ secure: boolean; text: string }> = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "paylink-starttls-"));
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    server = new SMTPServer({
      key: readFileSync(join(dir, "key.pem")),
      cert: readFileSync(join(dir, "cert.pem")),
      authOptional: true,
      logger: false,
      onMailFrom(_address, session, callback) {
        // Required, not offered: a client that stays in plain text is refused.
        if (!session.secure) return callback(Object.assign(new Error("5.7.0 Must issue a STARTTLS command first"), { responseCode: 530 }));
        callback();
      },
      onData(stream, session, callback) {
        simpleParser(stream)
          .then((parsed) => {
            received.push({ secure: session.secure, text: parsed.text ?? "" });
            callback();
          })
          .catch((error: Error) => callback(error));
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  function send(extraEnv: Record<string, string>): Promise<{ code: number; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ["--import", "tsx", SENDER],
        { env: { ...process.env, SMTP_URL: `smtp://127.0.0.1:${port}`, ...extraEnv }, timeout: 30_000 },
        (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
      );
    });
  }

  test("the transport upgrades and sends when its process trusts the server's certificate", async () => {
    const sent = await send({ NODE_EXTRA_CA_CERTS: join(dir, "cert.pem") });
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(received.length, 1);
    assert.equal(received[0]!.secure, true, "the message came over TLS");
    assert.match(received[0]!.text, /over TLS/);
  });

  test("an untrusted certificate sends nothing", async () => {
    const before = received.length;
    const refused = await send({ NODE_EXTRA_CA_CERTS: "" });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /certificate/i);
    assert.equal(received.length, before);
  });
});
