// ISO 8601 date-times of the API (expiresAt, validUntil, createdFrom/createdTo): read the same
// whatever the server's time zone, and impossible calendar dates refused (2008), not rolled over.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { AppError } from "../../src/domain/errors.ts";
import { parseIsoDateTime } from "../../src/domain/links/terms.ts";

describe("parseIsoDateTime", () => {
  // A server far from UTC: a time without an offset must still mean UTC.
  const originalTz = process.env.TZ;
  before(() => {
    process.env.TZ = "Pacific/Auckland";
  });
  after(() => {
    if (originalTz === undefined) delete process.env.TZ;
    else process.env.TZ = originalTz;
  });

  const iso = (text: string) => parseIsoDateTime("expiresAt", text).toISOString();

  it("reads a time without an offset, and a bare date, as UTC", () => {
    assert.equal(new Date(2030, 0, 1).getTimezoneOffset(), -780, "the test really runs in Auckland time");
    assert.equal(iso("2030-01-01T00:00:00"), "2030-01-01T00:00:00.000Z");
    assert.equal(iso("2030-01-01T10:00"), "2030-01-01T10:00:00.000Z");
    assert.equal(iso("2030-01-31"), "2030-01-31T00:00:00.000Z");
  });

  it("applies offsets, with or without the colon, and keeps milliseconds", () => {
    assert.equal(iso("2030-01-01T00:00:00Z"), "2030-01-01T00:00:00.000Z");
    assert.equal(iso("2030-01-01T00:00:00+01:00"), "2029-12-31T23:00:00.000Z");
    assert.equal(iso("2030-01-01T00:00:00-0530"), "2030-01-01T05:30:00.000Z");
    assert.equal(iso("2030-01-01T10:00:00.123456789Z"), "2030-01-01T10:00:00.123Z");
    assert.equal(iso("2028-02-29T12:00:00Z"), "2028-02-29T12:00:00.000Z", "a leap day");
    assert.equal(iso("0001-01-01T00:00:00Z"), "0001-01-01T00:00:00.000Z");
  });

  for (const text of [
    "2031-02-30T00:00:00Z",
    "2027-02-29T00:00:00Z",
    "2100-02-29",
    "2030-04-31",
    "2030-13-01",
    "2030-00-10",
    "2030-01-00",
    "2030-01-01T24:00:00Z",
    "2030-01-01T10:60:00Z",
    "2030-01-01T10:00:60Z",
    "2030-01-01T10:00:00+24:00",
    "2030-01-01T10:00:00+01:60",
    "0000-12-31T23:00:00Z",
    "0001-01-01T00:00:00+01:00",
    "2030-1-1",
    "tomorrow",
    "",
  ]) {
    it(`refuses ${JSON.stringify(text)} with 2008`, () => {
      assert.throws(
        () => parseIsoDateTime("expiresAt", text),
        (error: unknown) => error instanceof AppError && error.code === "2008" && error.message.includes("expiresAt"),
      );
    });
  }
});
