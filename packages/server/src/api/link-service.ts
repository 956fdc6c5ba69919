// Creating and changing payment links: the one place that applies the link rules and the checks
// against the merchant's data (terminal, currencies, theme). The API's handlers and the portal's
// forms both call these, so a link made in the browser obeys exactly the API's rules.
import type { Database } from "../db/connect.ts";
import type { KeyedEffect } from "../db/idempotency-repository.ts";
import { findLinkForUpdate, insertLink, insertLinkIfReferencesValid, saveLinkChange } from "../db/links-repository.ts";
import { AppError } from "../domain/errors.ts";
import { type CreateLinkRequest, termsFromCreateRequest } from "../domain/links/create.ts";
import { applyUpdate, type UpdateLinkRequest } from "../domain/links/update.ts";
import { validatorCompiler } from "../http/validation.ts";
import { newLinkReference } from "../ids.ts";
import { checkTerminalAndCurrency, checkTheme } from "./check-references.ts";
import { CreateLinkBody, UpdateLinkBody } from "./schemas.ts";

/** `keyed`: the Idempotency-Key's answer, committed with the link (a transaction only then). */
export async function createPaymentLink(
  db: Database,
  merchantId: string,
  request: CreateLinkRequest,
  now: Date,
  keyed?: KeyedEffect<string>,
): Promise<string> {
  const terms = termsFromCreateRequest(request, now);
  const reference = newLinkReference();
  const insert = async (trx: Database) => {
    // One round trip when the terminal and theme are right; otherwise the checks report which is wrong.
    if (!(await insertLinkIfReferencesValid(trx, reference, merchantId, terms))) {
      await checkTerminalAndCurrency(trx, merchantId, terms);
      await checkTheme(trx, merchantId, terms.themeKey);
      await insertLink(trx, reference, merchantId, terms);
    }
  };
  if (!keyed) await insert(db);
  else
    await db.transaction().execute(async (trx) => {
      await insert(trx);
      await keyed.answered(trx, reference);
    });
  return reference;
}

/** Applies an update request; false when the merchant has no such link. */
export async function updatePaymentLink(db: Database, merchantId: string, request: UpdateLinkRequest, now: Date): Promise<boolean> {
  // The row stays locked from read to write, so a sale cannot land between the rules' check
  // (e.g. "price frozen after a sale") and the change.
  return db.transaction().execute(async (trx) => {
    const current = await findLinkForUpdate(trx, merchantId, request.paymentLinkReference);
    if (!current) return false;
    const change = applyUpdate(current, request, now);
    if (change.terms.currency !== current.terms.currency) await checkTerminalAndCurrency(trx, merchantId, change.terms);
    if (change.terms.themeKey !== current.terms.themeKey) await checkTheme(trx, merchantId, change.terms.themeKey);
    await saveLinkChange(trx, current.reference, change.terms, change.disabled);
    return true;
  });
}

const validateCreate = validatorCompiler({ schema: CreateLinkBody, method: "POST", url: "", httpPart: "body" });
const validateUpdate = validatorCompiler({ schema: UpdateLinkBody, method: "POST", url: "", httpPart: "body" });

/** A create request built by another caller than the JSON API (the portal) passes the API's schema first. */
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
