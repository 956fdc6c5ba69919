import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../src/config.ts";
import { DataDirInUseError, lockDataDir } from "../src/db/data-dir-lock.ts";
import { createLogger } from "../src/logging.ts";

test("defaults follow README.md#configuration", () => {
  const config = loadConfig({});
  assert.equal(config.port, 3000);
  assert.equal(config.host, "0.0.0.0");
  assert.equal(config.publicBaseUrl, "http://localhost:3000");
  assert.equal(config.databaseUrl, undefined);
  assert.match(config.dataDir, /\/data$/);
  assert.equal(config.adminToken, undefined);
  assert.equal(config.webhookAllowPrivate, false);
  assert.equal(config.logLevel, "info");
  assert.equal(config.webhookEndpointConcurrency, 4);
});

test("PAYLINK_WEBHOOK_ENDPOINT_CONCURRENCY is a whole number from 1 to 16", () => {
  assert.equal(loadConfig({ PAYLINK_WEBHOOK_ENDPOINT_CONCURRENCY: "8" }).webhookEndpointConcurrency, 8);
  for (const value of ["0", "17", "two", "-1"])
    assert.throws(() => loadConfig({ PAYLINK_WEBHOOK_ENDPOINT_CONCURRENCY: value }), /PAYLINK_WEBHOOK_ENDPOINT_CONCURRENCY/, value);
});

test("SMTP_URL is smtp:// or smtps:// and never repeated in the error; MAIL_FROM defaults to the public host", () => {
  const config = loadConfig({ SMTP_URL: "smtp://user:pa%40ss@mail.example.com:587", PUBLIC_BASE_URL: "https://pay.example.is" });
  assert.equal(config.smtpUrl, "smtp://user:pa%40ss@mail.example.com:587");
  assert.equal(config.mailFrom, "Paylink <no-reply@pay.example.is>");
  assert.equal(loadConfig({}).smtpUrl, undefined);
  assert.equal(loadConfig({ MAIL_FROM: "Kaffi <kaffi@example.is>" }).mailFrom, "Kaffi <kaffi@example.is>");
  for (const value of ["http://user:secretpw@mail.example.com", "smtp://", "mail.example.com:587"]) {
    try {
      loadConfig({ SMTP_URL: value });
      assert.fail(`${value} was accepted`);
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /SMTP_URL must be/);
      assert.ok(!error.message.includes("secretpw"), "the password is never repeated");
    }
  }
  assert.throws(() => loadConfig({ MAIL_FROM: "nobody" }), /MAIL_FROM must be an e-mail address/);
});

test("every bad variable is reported at once, each with its name and value", () => {
  try {
    loadConfig({
      PORT: "eighty",
      PUBLIC_BASE_URL: "ftp://x",
      DATABASE_URL: "mysql://db",
      PAYLINK_ADMIN_TOKEN: "short",
      PAYLINK_WEBHOOK_ALLOW_PRIVATE: "maybe",
      LOG_LEVEL: "loud",
    });
    assert.fail("expected a ConfigError");
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    assert.equal(error.problems.length, 6, error.message);
    for (const name of ["PORT", "PUBLIC_BASE_URL", "DATABASE_URL", "PAYLINK_ADMIN_TOKEN", "PAYLINK_WEBHOOK_ALLOW_PRIVATE", "LOG_LEVEL"]) {
      assert.match(error.message, new RegExp(name));
    }
    assert.match(error.message, /"eighty"/);
  }
});

test("PUBLIC_BASE_URL loses its trailing slash; booleans accept true/false/1/0", () => {
  const config = loadConfig({
    PUBLIC_BASE_URL: "https://pay.example.com/",
    PAYLINK_WEBHOOK_ALLOW_PRIVATE: "1",
    DATABASE_URL: "postgres://x@h/db",
  });
  assert.equal(config.publicBaseUrl, "https://pay.example.com");
  assert.equal(config.webhookAllowPrivate, true);
  assert.equal(config.databaseUrl, "postgres://x@h/db");
});

test("the data directory lock refuses a live owner and takes over a dead one", () => {
  const dir = mkdtempSync(join(tmpdir(), "paylink-lock-"));
  try {
    const lock = lockDataDir(dir);
    // Our own PID is in the file; pretend another live process (PID 1, always alive) holds it.
    writeFileSync(join(dir, "paylink.lock"), "1");
    assert.throws(() => lockDataDir(dir), DataDirInUseError);
    // A PID that cannot exist (above the kernel's pid_max) is a stale lock.
    writeFileSync(join(dir, "paylink.lock"), "99999999");
    const second = lockDataDir(dir);
    second.release();
    assert.equal(existsSync(join(dir, "paylink.lock")), false);
    lock.release();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the embedded data directory is closed to other users (0700), also when it existed before", () => {
  const parent = mkdtempSync(join(tmpdir(), "paylink-perm-"));
  try {
    const fresh = join(parent, "fresh");
    lockDataDir(fresh).release();
    assert.equal(statSync(fresh).mode & 0o777, 0o700);
    const existing = join(parent, "existing");
    mkdirSync(existing, { mode: 0o755 });
    chmodSync(existing, 0o755);
    lockDataDir(existing).release();
    assert.equal(statSync(existing).mode & 0o777, 0o700);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

test("log redaction hides card fields at the top level and two levels down", () => {
  const lines: string[] = [];
  // The factory both `paylink serve` and `paylink worker` log through.
  const logger = createLogger("info", { write: (line: string) => void lines.push(line) });
  logger.info({ cardNumber: "4111111111111111", cardCvc: "737" }, "top");
  logger.info({ req: { body: { cardNumber: "4111111111111111", cardCvc: "737" } } }, "nested");
  logger.info({ form: { cardNumber: "4111111111111111" } }, "one level");
  const text = lines.join("\n");
  assert.equal(lines.length, 3);
  assert.ok(!text.includes("4111111111111111"), text);
  // Quoted: the bare digits may well occur inside a log line's timestamp.
  assert.ok(!text.includes('"737"'), text);
});
