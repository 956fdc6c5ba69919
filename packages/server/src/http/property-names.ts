// Clients of Straumur's payment-links API send property names in any letter case (its .NET
// service matches them that way: `Type`, `TerminalIdentifier`, `Items[].Name`). Before the schema
// check, every received name is renamed to the schema's own spelling, so the schema check, the
// handlers and the OpenAPI document only ever see the documented camelCase names.
import type { TSchema } from "typebox";
import { AppError } from "../domain/errors.ts";

/** The JSON-Schema keywords followed here: a TypeBox schema is a plain JSON-Schema object. */
interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
}

/** One schema object's property names by their lower-case form. */
type NameTable = Map<string, string>;

/**
 * Builds the renamer for one route part. Bodies keep names no property matches, so the schema
 * check still reports them (1006); query strings drop them, as the live service ignores unknown
 * query parameters. Two received names of one object that differ only in case are 2013.
 */
export function propertyNameMatcher(schema: TSchema, unknownNames: "keep" | "drop"): (input: unknown) => unknown {
  const tables = new WeakMap<SchemaNode, NameTable>();
  const tableOf = (node: SchemaNode): NameTable => {
    let table = tables.get(node);
    if (!table) {
      table = new Map();
      for (const name of Object.keys(node.properties ?? {})) {
        const folded = name.toLowerCase();
        // A schema that had both would make some requests ambiguous: refuse it when the route is built.
        if (table.has(folded)) throw new Error(`schema properties ${table.get(folded)} and ${name} differ only in letter case`);
        table.set(folded, name);
      }
      tables.set(node, table);
    }
    return table;
  };
  // Walks the schema eagerly once, so a bad schema fails at startup rather than on a request.
  const visit = (node: SchemaNode | undefined, seen = new Set<SchemaNode>()): void => {
    if (!node || typeof node !== "object" || seen.has(node)) return;
    seen.add(node);
    if (node.properties) tableOf(node);
    for (const child of Object.values(node.properties ?? {})) visit(child, seen);
    visit(node.items, seen);
  };
  visit(schema as SchemaNode);

  // Recursion follows the schema, not the value: its depth is the schema's, whatever is sent. The
  // path of a value is needed only for an error, so it is kept as a chain of parent links and spelt
  // out only then; scalar fields, most of a body, are copied without a call or a string.
  const rename = (node: SchemaNode, value: unknown, at: PathLink | null): unknown => {
    if (node.items && Array.isArray(value)) {
      const items = node.items;
      if (!holdsNames(items)) return value;
      return value.map((entry, index) => rename(items, entry, { parent: at, key: index }));
    }
    const properties = node.properties;
    if (!properties || typeof value !== "object" || value === null || Array.isArray(value)) return value;
    const table = tableOf(node);
    const output: Record<string, unknown> = {};
    for (const received of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[received];
      // The documented spelling is the common case: no lower-casing for it.
      const name = Object.hasOwn(properties, received) ? received : table.get(received.toLowerCase());
      if (name === undefined) {
        if (unknownNames === "keep") define(output, received, child);
        continue;
      }
      // An unknown name never equals a schema name, so a name already in the output was received before.
      if (Object.hasOwn(output, name)) {
        const earlier = Object.keys(value).find((key) => key !== received && key.toLowerCase() === name.toLowerCase());
        throw new AppError(
          "ConflictingFields",
          `${where(spell(at))}${JSON.stringify(earlier)} and ${JSON.stringify(received)} are the same field (names are matched in any letter case); send only one of them.`,
        );
      }
      const childNode = properties[name]!;
      define(output, name, holdsNames(childNode) ? rename(childNode, child, { parent: at, key: name }) : child);
    }
    return output;
  };
  return (input) => rename(schema as SchemaNode, input, null);
}

/** Whether a value of this schema node can hold property names to rename: scalars are copied as they are. */
function holdsNames(node: SchemaNode): boolean {
  return node.properties !== undefined || node.items !== undefined;
}

/** Where a value sits in the received document: its key or index, and its parent's link. */
interface PathLink {
  parent: PathLink | null;
  key: string | number;
}

function spell(at: PathLink | null): string {
  if (at === null) return "";
  const parent = spell(at.parent);
  if (typeof at.key === "number") return `${parent}[${at.key}]`;
  return parent ? `${parent}.${at.key}` : at.key;
}

function where(path: string): string {
  return path ? `In ${path}, ` : "";
}

/**
 * Plain assignment would treat a received `__proto__` as the prototype instead of a field; it is the
 * only name where the two differ on a fresh object, and the only one that pays for defineProperty
 * (which cost ~1.7% of a create's CPU when every name went through it).
 */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
