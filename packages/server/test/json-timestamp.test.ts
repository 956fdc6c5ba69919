// Times PostgreSQL writes into JSON read as the API shows them (ISO 8601 UTC, milliseconds, Z):
// the cut-the-text way for UTC must agree with a Date round trip, on texts of every shape and on
// what each database really writes, in UTC and in another zone.
import assert from "node:assert/strict";
import { test } from "node:test";
import { sql } from "kysely";
import { isoMillisFromJson } from "../src/db/json-timestamp.ts";
import { testBackends } from "./support/databases.ts";

const viaDate = (text: string) => new Date(text).toISOString();

test("every shape PostgreSQL writes reads as a Date would read it", () => {
  for (const text of [
    "2026-11-25T16:40:00+00:00",
    "2026-11-25T16:40:00.1+00:00",
    "2026-11-25T16:40:00.12+00:00",
    "2026-11-25T16:40:00.123+00:00",
    "2026-11-25T16:40:00.1234+00:00",
    "2026-11-25T16:40:00.999999+00:00",
    "2026-11-25T16:40:00.000001+00:00",
    "2026-11-25T23:59:59.9995+02:00",
    "2026-11-25T16:40:00.5-05:30",
  ])
    assert.equal(isoMillisFromJson(text), viaDate(text), text);
  assert.equal(isoMillisFromJson("2026-11-25T16:40:00.9+00:00"), "2026-11-25T16:40:00.900Z");
});

for (const backend of testBackends()) {
  test(`what ${backend.name} writes, in the session time zones UTC, Atlantic/Reykjavik and America/St_Johns`, async () => {
    const database = await backend.open();
    try {
      await database.db.connection().execute(async (db) => {
        for (const zone of ["UTC", "Atlantic/Reykjavik", "America/St_Johns"]) {
          await sql`SELECT set_config('TimeZone', ${zone}, false)`.execute(db);
          const { rows } = await sql<{ times: string[] }>`
            SELECT json_build_array(
              timestamptz '2026-11-25 16:40:00.123456+00', timestamptz '2026-11-25 16:40:00+00',
              timestamptz '2026-01-31 23:59:59.9+00', now()) AS times`.execute(db);
          const times = rows[0]!.times;
          for (const text of times) assert.equal(isoMillisFromJson(text), viaDate(text), `${zone}: ${text}`);
          assert.deepEqual(
            times.slice(0, 3).map(isoMillisFromJson),
            ["2026-11-25T16:40:00.123Z", "2026-11-25T16:40:00.000Z", "2026-01-31T23:59:59.900Z"],
            zone,
          );
        }
      });
    } finally {
      await database.destroy();
    }
  });
}
