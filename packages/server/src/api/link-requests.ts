// A link request built by another caller than the JSON API (the portal's form) passes the API's own
// schema first, so it meets the same shapes and lengths before the use case's rules.
import { AppError } from "../domain/errors.ts";
import type { CreateLinkRequest } from "../domain/links/create.ts";
import type { UpdateLinkRequest } from "../domain/links/update.ts";
import { validatorCompiler } from "../http/validation.ts";
import { CreateLinkBody, UpdateLinkBody } from "./schemas.ts";

const validateCreate = validatorCompiler({ schema: CreateLinkBody, method: "POST", url: "", httpPart: "body" });
const validateUpdate = validatorCompiler({ schema: UpdateLinkBody, method: "POST", url: "", httpPart: "body" });

export function checkedCreateRequest(body: unknown): CreateLinkRequest {
  return checked(validateCreate(body)) as CreateLinkRequest;
}

export function checkedUpdateRequest(body: unknown): UpdateLinkRequest {
  return checked(validateUpdate(body)) as UpdateLinkRequest;
}

function checked(result: unknown): unknown {
  if (result && typeof result === "object" && "error" in result && result.error) {
    throw result.error instanceof AppError ? result.error : new AppError("UnsupportedValue", String(result.error));
  }
  return result && typeof result === "object" && "value" in result ? result.value : undefined;
}
