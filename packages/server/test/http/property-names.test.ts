// The renamer of received property names (http/property-names.ts), on its own with a schema deeper
// than any route's today: names in any letter case become the schema's, unknown names are kept or
// dropped, and a case-duplicate is refused with the path of the object that holds it. The routes'
// own behaviour is tested through real HTTP in test/api/dialects.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Type } from "typebox";
import { AppError } from "../../src/domain/errors.ts";
import { propertyNameMatcher } from "../../src/http/property-names.ts";

const Schema = Type.Object({
  orderName: Type.String(),
  delivery: Type.Object({
    parcels: Type.Array(Type.Object({ weightGrams: Type.Number(), labels: Type.Array(Type.String()) })),
  }),
});

function conflictMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.kind, "ConflictingFields");
    return error.message;
  }
  assert.fail("no ConflictingFields error");
}

describe("propertyNameMatcher", () => {
  const keep = propertyNameMatcher(Schema, "keep");
  const drop = propertyNameMatcher(Schema, "drop");

  it("renames names in any letter case at every depth and leaves values alone", () => {
    const labels = ["fragile"];
    const renamed = keep({
      OrderName: "A",
      DELIVERY: {
        Parcels: [
          { weightgrams: 5, Labels: labels },
          { weightGrams: 7, labels: [] },
        ],
      },
    });
    assert.deepEqual(renamed, {
      orderName: "A",
      delivery: {
        parcels: [
          { weightGrams: 5, labels },
          { weightGrams: 7, labels: [] },
        ],
      },
    });
  });

  it("keeps unknown names as sent, or drops them", () => {
    assert.deepEqual(keep({ orderName: "A", Colour: "red" }), { orderName: "A", Colour: "red" });
    assert.deepEqual(drop({ orderName: "A", Colour: "red" }), { orderName: "A" });
  });

  it("refuses two spellings of one name, naming both and the path of their object", () => {
    assert.match(
      conflictMessage(() => keep({ orderName: "A", ORDERNAME: "B" })),
      /^"orderName" and "ORDERNAME" are the same field/,
    );
    const deep = { delivery: { parcels: [{ weightGrams: 1 }, { weightGrams: 2, WeightGrams: 3 }] } };
    assert.match(
      conflictMessage(() => keep(deep)),
      /^In delivery\.parcels\[1\], "weightGrams" and "WeightGrams" are the same field/,
    );
    const nested = { Delivery: { parcels: [], PARCELS: [] } };
    assert.match(
      conflictMessage(() => drop(nested)),
      /^In delivery, "parcels" and "PARCELS" are the same field/,
    );
  });

  it("treats names JavaScript objects inherit as unknown", () => {
    const renamed = keep(JSON.parse('{"orderName": "A", "constructor": 1, "__proto__": {"polluted": true}}')) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(renamed), Object.prototype);
    assert.deepEqual(Object.keys(renamed), ["orderName", "constructor", "__proto__"]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
