// Request validation: the TypeBox schemas of each route are compiled once, and a failed check is
// turned into the catalogue's error code here, so that every route reports bad input the same
// way (docs/api.md#errors). The schema is the single source for validation, types and OpenAPI.
import type { FastifySchemaCompiler } from "fastify";
import type { TSchema } from "typebox";
import { Compile } from "typebox/compile";
import { AppError } from "../domain/errors.ts";
import { propertyNameMatcher } from "./property-names.ts";

/** The JSON-Schema keywords read here (a TypeBox schema is a plain JSON-Schema object). */
interface SchemaShape {
  required?: unknown[];
  properties?: Record<string, { type?: unknown }>;
}

interface SchemaError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

/** Exact names: the admin API and the checkout, whose clients are Paylink's own. */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = compiler({ anyCaseNames: false });

/**
 * The payment-link API: property names of bodies and query strings in any letter case, and
 * unknown query parameters ignored, as Straumur's payment-links API does.
 */
export const anyCaseValidatorCompiler: FastifySchemaCompiler<TSchema> = compiler({ anyCaseNames: true });

function compiler(options: { anyCaseNames: boolean }): FastifySchemaCompiler<TSchema> {
  return ({ schema, httpPart }) => validator(schema, httpPart, options);
}

function validator(schema: TSchema, httpPart: string | undefined, { anyCaseNames }: { anyCaseNames: boolean }) {
  const check = Compile(schema);
  // A body whose fields are all optional (e.g. the admin API's `{ "name"? }`) may be left out.
  // (Fastify hands a missing body over as null, so a JSON null counts as left out too.)
  const bodyOptional = httpPart === "body" && !(schema as SchemaShape).required?.length;
  const matchNames =
    anyCaseNames && (httpPart === "body" || httpPart === "querystring")
      ? propertyNameMatcher(schema, httpPart === "body" ? "keep" : "drop")
      : undefined;
  return (input: unknown) => {
    if (httpPart === "body" && (input === null || input === undefined) && bodyOptional) input = {};
    if (httpPart === "body" && (input === null || input === undefined)) {
      return { error: withStatus(new AppError("InvalidJson", "The request body is empty; send a JSON object.")) };
    }
    if (matchNames) {
      try {
        input = matchNames(input);
      } catch (error) {
        if (error instanceof AppError) return { error: withStatus(error) };
        throw error;
      }
    }
    // Query strings and path parameters arrive as text: convert "2" to 2 before checking.
    // Bodies are never converted: a JSON string where a number belongs is a client bug (1005).
    const value = httpPart === "body" ? input : convertText(schema, input);
    if (check.Check(value)) {
      const problem = unstorableValue(value, httpPart ?? "body");
      return problem ? { error: withStatus(problem) } : { value };
    }
    const errors = [...check.Errors(value)] as SchemaError[];
    return { error: withStatus(toAppError(schema, errors, httpPart ?? "body")) };
  };
}

/**
 * Strict text → number/boolean conversion of query and path values. TypeBox's Value.Convert is
 * lenient ("2.5" → 2, "" → 0, "true" → 1, "0x10" → 16), which would let a malformed page or
 * pageSize through; here only plain decimal text converts, anything else stays text (1005).
 */
function convertText(schema: TSchema, input: unknown): unknown {
  const { properties } = schema as SchemaShape;
  if (typeof input !== "object" || input === null || !properties) return input;
  const output: Record<string, unknown> = { ...input };
  for (const [key, text] of Object.entries(output)) {
    if (typeof text !== "string" || !Object.hasOwn(properties, key)) continue;
    const type = properties[key]!.type;
    if (type === "integer" && /^-?\d+$/.test(text)) output[key] = Number(text);
    else if (type === "number" && /^-?\d+(\.\d+)?$/.test(text)) output[key] = Number(text);
    else if (type === "boolean" && (text === "true" || text === "false")) output[key] = text === "true";
  }
  return output;
}

/** Deeper than any request Paylink understands; deeper still could exhaust the stack later on. */
const MAX_DEPTH = 32;
/** NUL, or a UTF-16 surrogate without its pair. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what PostgreSQL cannot store
const UNSTORABLE_CHARACTER = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Values that are valid JSON but that PostgreSQL cannot store (text and jsonb reject NUL, jsonb
 * rejects unpaired surrogates, which text would silently replace) or that are nested absurdly
 * deep. Walked without recursion, after the schema check, so the schema's codes keep priority.
 */
function unstorableValue(root: unknown, part: string): AppError | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: "", depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === "string") {
      if (UNSTORABLE_CHARACTER.test(value)) {
        return new AppError(
          "UnsupportedValue",
          `${fieldName(path, part)} contains a character that is not allowed (NUL or an unpaired UTF-16 surrogate).`,
        );
      }
    } else if (typeof value === "object" && value !== null) {
      if (depth >= MAX_DEPTH) {
        const topLevel = path.split("/").slice(0, 2).join("/");
        return new AppError("TooLong", `${fieldName(topLevel, part)} is nested too deeply: at most ${MAX_DEPTH} levels.`);
      }
      for (const [key, child] of Object.entries(value)) stack.push({ value: child, path: `${path}/${key}`, depth: depth + 1 });
    }
  }
  return undefined;
}

function withStatus(error: AppError): AppError {
  return Object.assign(error, { statusCode: error.status });
}

/** Which problem to report first when a body has several: structure before values. */
const KEYWORD_ORDER = ["additionalProperties", "type", "required", "enum", "const", "anyOf"];

function toAppError(root: unknown, errors: SchemaError[], part: string): AppError {
  const reportable = errors.filter((e) => e.keyword !== "boolean");
  const rank = (e: SchemaError) => {
    const index = KEYWORD_ORDER.indexOf(e.keyword);
    return index === -1 ? KEYWORD_ORDER.length : index;
  };
  const first = [...reportable].sort((a, b) => rank(a) - rank(b))[0];
  if (!first) return new AppError("WrongType", `The ${part} is not valid.`);
  const error = describeProblem(root, first, part);
  const child = (first.params.additionalProperties ?? first.params.requiredProperties) as string[] | undefined;
  const path = child?.[0] === undefined ? first.instancePath : `${first.instancePath}/${child[0]}`;
  return part === "body" && path !== "" ? error.at(fieldName(path, part)) : error;
}

function describeProblem(root: unknown, first: SchemaError, part: string): AppError {
  const where = fieldName(first.instancePath, part);
  const node = schemaAt(root, first.schemaPath) as Record<string, unknown> | undefined;

  switch (first.keyword) {
    case "additionalProperties": {
      const extra = (first.params.additionalProperties as string[] | undefined)?.[0] ?? "?";
      return new AppError("UnknownField", `${joinField(where, extra)} is not a known field.`);
    }
    case "type":
      return new AppError("WrongType", `${where} must be ${describeType(first.params.type)}.`);
    case "required": {
      const missing = (first.params.requiredProperties as string[] | undefined)?.[0] ?? "?";
      return new AppError("RequiredFieldMissing", `${joinField(where, missing)} is required.`);
    }
    case "enum":
    case "const":
    case "anyOf": {
      const allowed = (node?.enum as unknown[] | undefined)
        ?.filter((v) => v !== null)
        .map((v) => JSON.stringify(v))
        .join(", ");
      return new AppError("UnknownValue", allowed ? `${where} must be one of ${allowed}.` : `${where} has an unknown value.`);
    }
    case "minLength":
    case "maxLength": {
      const min = node?.minLength as number | undefined;
      const max = node?.maxLength as number | undefined;
      if (min !== undefined && min === max) return new AppError("WrongLength", `${where} must be exactly ${min} characters long.`);
      if (first.keyword === "maxLength") return new AppError("TooLong", `${where} is too long: at most ${max} characters.`);
      if (min === 1) return new AppError("RequiredFieldMissing", `${where} cannot be empty.`);
      return new AppError("TooShort", `${where} is too short: at least ${min} characters.`);
    }
    case "maxItems":
      return new AppError("TooLong", `${where} has too many entries: at most ${node?.maxItems}.`);
    case "minItems":
      return new AppError("RequiredFieldMissing", `${where} needs at least ${node?.minItems} entries.`);
    case "minimum":
    case "exclusiveMinimum":
      return new AppError("MustBeGreater", `${where} must be at least ${first.params.limit}.`);
    case "maximum":
    case "exclusiveMaximum":
      // An amount over its cap is AmountTooHigh (2019); any other number over its cap (a quantity, a page) is TooLong (2009).
      return new AppError(
        part === "body" && AMOUNT_FIELDS.test(first.instancePath) ? "AmountTooHigh" : "TooLong",
        `${where} is too high: at most ${first.params.limit}.`,
      );
    case "format":
    case "pattern":
      return new AppError("UnsupportedValue", `${where} is not in a supported format${node?.description ? ` (${node.description})` : ""}.`);
    default:
      return new AppError("WrongType", `${where} is not valid: ${first.message}.`);
  }
}

/** Money fields, by their last path segment: over their maximum they are 2019. */
const AMOUNT_FIELDS = /\/(amount|unitPrice|amountWithoutDiscount)$/;

function fieldName(instancePath: string, part: string): string {
  if (instancePath === "") return part === "body" ? "The request body" : `The ${part}`;
  return instancePath
    .slice(1)
    .split("/")
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment), "");
}

function joinField(parent: string, child: string): string {
  return parent.startsWith("The ") ? child : `${parent}.${child}`;
}

function describeType(type: unknown): string {
  const names = (Array.isArray(type) ? type : [type]).map((t) =>
    t === "integer" ? "a whole number" : t === "null" ? "null" : `a${/^[aeiou]/.test(String(t)) ? "n" : ""} ${t}`,
  );
  return names.join(" or ");
}

function schemaAt(root: unknown, schemaPath: string): unknown {
  let node = root as Record<string, unknown> | undefined;
  for (const segment of schemaPath.replace(/^#\/?/, "").split("/").filter(Boolean)) {
    node = node?.[segment.replace(/~1/g, "/").replace(/~0/g, "~")] as Record<string, unknown> | undefined;
  }
  return node;
}
