// A local Adyen for tests of the Adyen adapter: an HTTP server on 127.0.0.1 that checks every
// request the adapter sends against Adyen's published Checkout API v71 schemas
// (test/fixtures/adyen, from Adyen's OpenAPI document), keeps each one with its verdict, answers
// with objects built from Adyen's published examples (and checks its own answers against the
// published response schemas), serves a bare Hosted Checkout page a test can pay on over plain
// HTTP, and sends standard notifications signed with Adyen's HMAC scheme. 4111111111111111 (Adyen's
// Visa test card) is authorised; 4000000000000002 is refused and the page stays open (Adyen's own
// test environment refuses by the holder name DECLINED instead; docs/processors.md#adyen). After
// the sale it charges the cards its page stored (by storedPaymentMethodId and the shopperReference
// they were stored under), can want the shopper first (3-D Secure) on a page of its own, and takes
// refunds, reversals, captures and amount updates "received", notifying each one's result.
import { createHmac, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { startFakeServer } from "./fake-server.ts";

const FIXTURES = new URL("../fixtures/adyen/", import.meta.url);
type Json = any;

export const CHECKOUT_SCHEMAS = JSON.parse(readFileSync(new URL("checkout-schemas.json", FIXTURES), "utf8")) as {
  operations: Record<string, { requestBody?: Schema; query?: Schema; response: { status: number; schema: Schema } }>;
  components: { schemas: Record<string, Schema> };
};
export const ADYEN_EXAMPLES = JSON.parse(readFileSync(new URL("examples.json", FIXTURES), "utf8")) as Record<string, Json>;

/** Authorised: Adyen's Visa test card (its "Test card numbers" page). Refused by this fake: the sandbox's refused card. */
export const ADYEN_TEST_CARDS = { approved: "4111111111111111", refused: "4000000000000002" } as const;

// ── The schema subset Adyen's Checkout document uses, checked strictly ──

export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  required?: string[];
  items?: Schema;
  oneOf?: Schema[];
  nullable?: boolean;
  deprecated?: boolean;
  readOnly?: boolean;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Errors of a JSON value against one of the document's schemas: a wrong type, an unknown property
 * (every object schema of the document closes its properties), a missing required one, a value
 * outside its enum, length or format, and, in a request, a deprecated or read-only field.
 */
export function schemaErrors(schema: Schema, value: unknown, path = "", direction: "request" | "answer" = "request"): string[] {
  const at = path || "(body)";
  if (schema.$ref) {
    const name = schema.$ref.split("/").pop()!;
    const target = CHECKOUT_SCHEMAS.components.schemas[name];
    if (!target) return [`${at}: schema ${name} was not copied into the fixtures`];
    return schemaErrors(target, value, path, direction);
  }
  const errors: string[] = [];
  if (direction === "request" && schema.deprecated) errors.push(`${at}: deprecated`);
  if (direction === "request" && schema.readOnly) errors.push(`${at}: read-only, not for requests`);
  if (value === null && schema.nullable) return errors;
  if (schema.oneOf) {
    // Adyen's alternatives (payment methods, actions) are closed objects: a value is valid when one takes it.
    const verdicts = schema.oneOf.map((alternative) => schemaErrors(alternative, value, path, direction));
    return verdicts.some((verdict) => verdict.length === 0)
      ? errors
      : [...errors, `${at}: matches none of its ${verdicts.length} alternatives`];
  }
  if (schema.enum && !schema.enum.includes(value)) return [...errors, `${at}: not one of ${schema.enum.join(", ")}`];
  switch (schema.type) {
    case "object": {
      if (value === null || typeof value !== "object" || Array.isArray(value)) return [...errors, `${at}: must be an object`];
      const record = value as Record<string, unknown>;
      for (const [key, inner] of Object.entries(record)) {
        const child =
          schema.properties?.[key] ?? (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
        const where = path ? `${path}.${key}` : key;
        if (!child) {
          if (schema.additionalProperties !== true) errors.push(`${where}: unknown property`);
        } else errors.push(...schemaErrors(child, inner, where, direction));
      }
      for (const key of schema.required ?? []) if (!(key in record)) errors.push(`${path ? `${path}.${key}` : key}: missing`);
      return errors;
    }
    case "array":
      if (!Array.isArray(value)) return [...errors, `${at}: must be an array`];
      return [
        ...errors,
        ...value.flatMap((item, index) => (schema.items ? schemaErrors(schema.items, item, `${path}[${index}]`, direction) : [])),
      ];
    case "string": {
      if (typeof value !== "string") return [...errors, `${at}: must be a string`];
      if (schema.minLength !== undefined && value.length < schema.minLength) errors.push(`${at}: shorter than ${schema.minLength}`);
      if (schema.maxLength !== undefined && value.length > schema.maxLength) errors.push(`${at}: longer than ${schema.maxLength}`);
      if (schema.format === "date-time" && !(DATE_TIME.test(value) && !Number.isNaN(Date.parse(value))))
        errors.push(`${at}: not a date-time`);
      if (schema.format === "date" && !DATE.test(value)) errors.push(`${at}: not a date`);
      if (schema.format === "byte" && !BASE64.test(value)) errors.push(`${at}: not base64`);
      return errors;
    }
    case "integer": {
      if (typeof value !== "number" || !Number.isInteger(value)) return [...errors, `${at}: must be an integer`];
      const limit = schema.format === "int32" ? 2 ** 31 : 2 ** 63;
      if (value < -limit || value >= limit) errors.push(`${at}: outside ${schema.format}`);
      return errors;
    }
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? errors : [...errors, `${at}: must be a number`];
    case "boolean":
      return typeof value === "boolean" ? errors : [...errors, `${at}: must be true or false`];
    default:
      return errors;
  }
}

// ── Adyen's notification HMAC, computed here on its own (the adapter's is checked against the same vectors) ──

export function signItem(item: Json, hexKey: string): string {
  const field = (value: unknown) => (value === undefined || value === null ? "" : String(value));
  const text = [
    item.pspReference,
    item.originalReference,
    item.merchantAccountCode,
    item.merchantReference,
    item.amount?.value,
    item.amount?.currency,
    item.eventCode,
    item.success,
  ]
    .map(field)
    .join(":");
  return createHmac("sha256", Buffer.from(hexKey, "hex")).update(text, "utf8").digest("base64");
}

// ── The fake ──

export interface AdyenRequest {
  method: string;
  /** The operation as the fixtures name it, e.g. `POST /v71/sessions`. */
  route: string;
  path: string;
  query: string;
  body: string;
  idempotencyKey: string | null;
  /** Schema and authentication errors; empty when Adyen would take the request. */
  errors: string[];
  /** Errors of the fake's own answer against the published response schema (a fault of the fake). */
  answerErrors: string[];
  status: number;
}

export interface SentNotification {
  eventCode: string;
  success: string;
  merchantReference: string;
  pspReference: string;
  /** Paylink's HTTP status and body. */
  status: number;
  answer: string;
}

export interface FakeSession {
  id: string;
  reference: string;
  merchantAccount: string;
  amount: { value: number; currency: string };
  returnUrl: string;
  expiresAt: string;
  saveCard: boolean;
  shopperReference: string | null;
  status: "active" | "completed" | "refused" | "expired";
  /** What the page appended to the return; GET /sessions/{id} answers only to it. */
  sessionResult: string | null;
  payments: Array<{ pspReference: string; resultCode: "Authorised"; amount: { value: number; currency: string } }>;
  storedPaymentMethodId: string | null;
  /** `additionalData.manualCapture` of the create call: the payment is authorised only. */
  manualCapture: boolean;
}

/** An authorised payment at the fake (a session's or a saved card's), which modifications may name. */
export interface FakePayment {
  pspReference: string;
  merchantAccount: string;
  /** The `reference` of the payment: Paylink's checkoutReference of the attempt or charge. */
  reference: string;
  amount: { value: number; currency: string };
}

/** A modification the fake received, with the (unsigned) notification item of its result. */
export interface FakeModification {
  kind: "refunds" | "reversals" | "captures" | "amountUpdates";
  pspReference: string;
  paymentPspReference: string;
  reference: string;
  item: Json;
}

export interface FakeAdyen {
  origin: string;
  /** What a terminal is configured with: this fake's base, the part before `/v71`. */
  baseUrl: string;
  apiKey: string;
  /** The webhook's HMAC key, hexadecimal, as Adyen's Customer Area shows it. */
  hmacKey: string;
  merchantAccount: string;
  requests: AdyenRequest[];
  notifications: SentNotification[];
  sessions: Map<string, FakeSession>;
  /** Where notifications go (the terminal's webhookUrl); none are sent before it is set. */
  webhookUrl: string | null;
  /** Whether the page sends its AUTHORISATION notifications by itself, and a reversal its CANCEL_OR_REFUND (default true). */
  autoNotifications: boolean;
  /** Whether a completed session's result lists its payment (the schema allows it; Adyen's published example has none). */
  resultListsPayments: boolean;
  /** The next request whose path matches is carried out, but its answer never reaches the caller. */
  loseNextAnswer(path: RegExp): void;
  /** The next request whose path matches is refused with Adyen's published 422 (its message replaced), and nothing is done. */
  refuseNext(path: RegExp, message: string, errorCode?: string): void;
  /** Charges of this stored card want the shopper first: RedirectShopper to a page of the fake that authorises and notifies. */
  requireShopperFor(storedPaymentMethodId: string): void;
  /** Every authorised payment by pspReference. */
  payments: Map<string, FakePayment>;
  /** Every modification received, in order. */
  modifications: FakeModification[];
  /** A dispute event about a payment, from Adyen's published example of that event (unsigned). */
  disputeItem(
    eventCode: string,
    paymentPspReference: string,
    options?: { disputePspReference?: string; eventDate?: string; disputeStatus?: string },
  ): Json;
  /** The AUTHORISATION item of a session's payment (or of a refusal), unsigned, from Adyen's published example. */
  authorisationItem(sessionId: string, options?: { success?: boolean; pspReference?: string }): Json;
  /** Posts items as one standard notification, each signed with the webhook's key (or another). */
  sendNotification(items: Json[], options?: { hmacKey?: string }): Promise<SentNotification>;
  close(): Promise<void>;
}

export async function startFakeAdyen(): Promise<FakeAdyen> {
  const apiKey = `AQE${randomBytes(24).toString("base64url")}`;
  const hmacKey = randomBytes(32).toString("hex").toUpperCase();
  const merchantAccount = "PaylinkTestECOM";
  const requests: AdyenRequest[] = [];
  const notifications: SentNotification[] = [];
  const sessions = new Map<string, FakeSession>();
  const idempotent = new Map<string, { body: string; status: number; answer: Json }>();
  const payments = new Map<string, FakePayment>();
  const modifications: FakeModification[] = [];
  /** storedPaymentMethodId → the shopperReference it was stored under. */
  const storedMethods = new Map<string, string>();
  const shopperMethods = new Set<string>();
  /** 3-D Secure pages: id → the charge waiting on it. */
  const challenges = new Map<string, { pspReference: string; body: Json; done: boolean }>();
  let refusing: { path: RegExp; message: string; errorCode: string } | undefined;
  let origin = "";
  const fake = {} as FakeAdyen;

  /** Adyen's 16-character references. */
  const pspReference = () =>
    Array.from(randomBytes(16), (byte) => "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[byte % 36])
      .join("")
      .slice(0, 16);
  const example = (name: string): Json => structuredClone(ADYEN_EXAMPLES[name]);
  const serviceError = (status: number, message: string, errorCode = "000") => ({
    status,
    answer: { status, errorCode, message, errorType: status === 401 ? "security" : "validation" },
  });
  const eventDate = () => new Date().toISOString().replace(/\.\d{3}Z$/, "+00:00");
  /** An item of a published notification example, its ids and amounts replaced by the caller's. */
  const itemFrom = (eventCode: string, fields: Json): Json => ({
    ...example(eventCode).notificationItems[0].NotificationRequestItem,
    eventDate: eventDate(),
    ...fields,
  });

  const authorisationItem = (sessionId: string, options: { success?: boolean; pspReference?: string } = {}): Json => {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    const success = options.success ?? true;
    const template = example("AUTHORISATION").notificationItems[0].NotificationRequestItem;
    const additionalData: Record<string, string> = {
      authCode: success ? "012345" : "",
      cardSummary: "1111",
      expiryDate: "03/2030",
      fundingSource: "CREDIT",
    };
    if (success && session.saveCard && session.storedPaymentMethodId) {
      // As the published example shows a card saved with a payment.
      additionalData["tokenization.shopperReference"] = session.shopperReference ?? "";
      additionalData["tokenization.storedPaymentMethodId"] = session.storedPaymentMethodId;
      additionalData["tokenization.store.operationType"] = "created";
    }
    return {
      ...template,
      additionalData,
      amount: { ...session.amount },
      eventDate: eventDate(),
      merchantAccountCode: session.merchantAccount,
      merchantReference: session.reference,
      paymentMethod: "visa",
      operations: success ? ["CANCEL", "CAPTURE", "REFUND"] : undefined,
      pspReference: options.pspReference ?? session.payments[0]?.pspReference ?? pspReference(),
      reason: success ? "012345:1111:03/2030" : "Refused",
      success: String(success),
    };
  };

  const sendNotification = async (items: Json[], options: { hmacKey?: string } = {}): Promise<SentNotification> => {
    if (!fake.webhookUrl) throw new Error("no webhook address");
    const body = {
      live: "false",
      notificationItems: items.map((item) => {
        const signed = { ...item, additionalData: { ...(item.additionalData ?? {}) } };
        signed.additionalData.hmacSignature = signItem(signed, options.hmacKey ?? hmacKey);
        return { NotificationRequestItem: signed };
      }),
    };
    const response = await fetch(fake.webhookUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const first = items[0] ?? {};
    const sent: SentNotification = {
      eventCode: first.eventCode,
      success: first.success,
      merchantReference: first.merchantReference,
      pspReference: first.pspReference,
      status: response.status,
      answer: await response.text(),
    };
    notifications.push(sent);
    return sent;
  };

  /** Notifications go out on their own, as Adyen sends them, after the answer to the shopper. */
  const notifyLater = (items: () => Json[]) => {
    if (!fake.webhookUrl || !fake.autoNotifications) return;
    setTimeout(() => void sendNotification(items()).catch(() => undefined), 20);
  };

  const createSession = (body: Json): { status: number; answer: Json } => {
    if (body.mode !== "hosted") return serviceError(422, "This fake serves Hosted Checkout sessions only (mode: hosted)");
    if (body.merchantAccount !== merchantAccount) return serviceError(403, "Not allowed for this merchant account", "901");
    const now = Date.now();
    const expiresAt = body.expiresAt ? Date.parse(body.expiresAt) : now + 3600_000;
    // Adyen: "You cannot set the session expiry to more than 24 hours after session creation."
    if (expiresAt > now + 24 * 3600_000 || expiresAt <= now) return serviceError(422, "expiresAt must be in the next 24 hours");
    const saveCard = body.storePaymentMethodMode === "enabled";
    if (saveCard && !body.shopperReference) return serviceError(422, "shopperReference is required to store a payment method");
    if (saveCard && !body.recurringProcessingModel)
      return serviceError(422, "recurringProcessingModel is required to store a payment method");
    const session: FakeSession = {
      id: `CS${pspReference()}`,
      reference: body.reference,
      merchantAccount: body.merchantAccount,
      amount: { ...body.amount },
      returnUrl: body.returnUrl,
      expiresAt: new Date(expiresAt).toISOString(),
      saveCard,
      shopperReference: body.shopperReference ?? null,
      status: "active",
      sessionResult: null,
      payments: [],
      storedPaymentMethodId: null,
      manualCapture: body.additionalData?.manualCapture === "true",
    };
    sessions.set(session.id, session);
    const base = example(saveCard ? "POST /v71/sessions 201 enableOneClick" : "POST /v71/sessions 201");
    delete base.countryCode;
    const answer: Json = {
      ...base,
      amount: session.amount,
      expiresAt: session.expiresAt,
      id: session.id,
      merchantAccount: session.merchantAccount,
      mode: "hosted",
      reference: session.reference,
      returnUrl: session.returnUrl,
      sessionData: `Ab02b4c0!${randomBytes(24).toString("base64")}`,
      shopperLocale: body.shopperLocale,
      url: `${origin}/checkoutshopper/sessions/${session.id}`,
    };
    if (saveCard) {
      Object.assign(answer, {
        shopperReference: session.shopperReference,
        recurringProcessingModel: body.recurringProcessingModel,
        shopperInteraction: body.shopperInteraction,
        storePaymentMethodMode: "enabled",
      });
      delete answer.storePaymentMethod;
    }
    return { status: 201, answer };
  };

  const sessionResult = (id: string, query: URLSearchParams): { status: number; answer: Json } => {
    const session = sessions.get(id);
    // Adyen decrypts sessionResult with the session; one that is not this session's is refused.
    if (!session?.sessionResult || query.get("sessionResult") !== session.sessionResult) {
      return serviceError(422, "Invalid sessionResult for this session");
    }
    const answer: Json = {
      ...example("GET /v71/sessions/{sessionId} 200"),
      id: session.id,
      reference: session.reference,
      status: session.status,
    };
    if (fake.resultListsPayments && session.payments.length > 0) {
      answer.payments = session.payments.map((payment) => ({ ...payment, paymentMethod: { brand: "visa", type: "scheme" } }));
    }
    return { status: 200, answer };
  };

  /** The event that reports each modification's result. */
  const MODIFICATION_EVENTS = {
    refunds: "REFUND",
    reversals: "CANCEL_OR_REFUND",
    captures: "CAPTURE",
    amountUpdates: "AUTHORISATION_ADJUSTMENT",
  } as const;

  /** A refund, reversal, capture or amount update: "received", and its result notified later. */
  const modify = (kind: FakeModification["kind"], psp: string, body: Json): { status: number; answer: Json } => {
    const payment = payments.get(psp);
    if (!payment) return serviceError(422, "Original pspReference required for this operation", "167");
    if (body.merchantAccount !== payment.merchantAccount) return serviceError(403, "Not allowed for this merchant account", "901");
    if (body.amount && body.amount.currency !== payment.amount.currency) return serviceError(422, "Invalid currency specified", "138");
    const answer: Json = {
      ...example(`POST /v71/payments/{paymentPspReference}/${kind} 201`),
      merchantAccount: body.merchantAccount,
      paymentPspReference: psp,
      reference: body.reference,
      pspReference: pspReference(),
      status: "received",
    };
    if (body.amount) answer.amount = { ...body.amount };
    const item = itemFrom(MODIFICATION_EVENTS[kind], {
      additionalData: kind === "reversals" ? { "modification.action": "cancel" } : {},
      amount: body.amount ? { ...body.amount } : { ...payment.amount },
      merchantAccountCode: payment.merchantAccount,
      // Adyen echoes the modification's own reference as the notification's merchantReference.
      merchantReference: body.reference,
      originalReference: psp,
      paymentMethod: "visa",
      pspReference: answer.pspReference,
      reason: "",
      success: "true",
    });
    modifications.push({ kind, pspReference: answer.pspReference, paymentPspReference: psp, reference: body.reference, item });
    notifyLater(() => [item]);
    return { status: 201, answer };
  };

  /** A saved card's charge: authorised, or RedirectShopper for a card that wants its shopper. */
  const charge = (body: Json): { status: number; answer: Json } => {
    if (body.merchantAccount !== merchantAccount) return serviceError(403, "Not allowed for this merchant account", "901");
    const stored = body.paymentMethod?.storedPaymentMethodId;
    // Adyen finds a stored card under the shopper it was stored for, and only there.
    if (!stored || storedMethods.get(stored) !== body.shopperReference) return serviceError(422, "Contract not found", "800");
    const psp = pspReference();
    if (shopperMethods.has(stored)) {
      const id = randomBytes(12).toString("hex");
      challenges.set(id, { pspReference: psp, body, done: false });
      const answer = example("POST /v71/payments 200 card-3d-secure-redirect");
      return {
        status: 200,
        answer: {
          ...answer,
          pspReference: psp,
          additionalData: { ...answer.additionalData, merchantReference: body.reference },
          action: { ...answer.action, url: `${origin}/checkoutshopper/threeDS/redirect/${id}` },
        },
      };
    }
    authorise(psp, body);
    return {
      status: 200,
      answer: {
        ...example("POST /v71/payments 200"),
        pspReference: psp,
        merchantReference: body.reference,
        additionalData: { authCode: "044925", cardSummary: "1111", paymentMethod: "visa", fundingSource: "CREDIT" },
      },
    };
  };

  /** A saved card's charge authorised (at once, or after its shopper): notified as Adyen notifies every payment. */
  const authorise = (psp: string, body: Json) => {
    payments.set(psp, { pspReference: psp, merchantAccount: body.merchantAccount, reference: body.reference, amount: { ...body.amount } });
    notifyLater(() => [
      itemFrom("AUTHORISATION", {
        additionalData: { authCode: "044925", cardSummary: "1111", expiryDate: "03/2030", fundingSource: "CREDIT" },
        amount: { ...body.amount },
        merchantAccountCode: body.merchantAccount,
        merchantReference: body.reference,
        operations: ["CANCEL", "CAPTURE", "REFUND"],
        paymentMethod: "visa",
        pspReference: psp,
        reason: "044925:1111:03/2030",
        success: "true",
      }),
    ]);
  };

  const disputeItem = (
    eventCode: string,
    paymentPsp: string,
    options: { disputePspReference?: string; eventDate?: string; disputeStatus?: string } = {},
  ): Json => {
    const payment = payments.get(paymentPsp);
    if (!payment) throw new Error(`no payment ${paymentPsp}`);
    const template = example(eventCode).notificationItems[0].NotificationRequestItem;
    const additionalData = { ...(template.additionalData ?? {}) };
    delete additionalData.hmacSignature;
    if (options.disputeStatus) additionalData.disputeStatus = options.disputeStatus;
    return {
      ...template,
      additionalData,
      amount: { ...payment.amount },
      eventDate: options.eventDate ?? eventDate(),
      merchantAccountCode: payment.merchantAccount,
      merchantReference: payment.reference,
      originalReference: paymentPsp,
      pspReference: options.disputePspReference ?? pspReference(),
    };
  };

  /** The operation a request is checked against, by its path. */
  const routeOf = (method: string, path: string): string =>
    `${method} ${path
      .replace(/^\/v71\/sessions\/[^/]+$/, "/v71/sessions/{sessionId}")
      .replace(/^\/v71\/payments\/[^/]+\/(reversals|refunds|captures|amountUpdates)$/, "/v71/payments/{paymentPspReference}/$1")}`;

  const handleApi = (request: IncomingMessage, url: URL, body: string): { status: number; answer: Json; record: AdyenRequest } => {
    const method = request.method ?? "GET";
    const route = routeOf(method, url.pathname);
    const key = typeof request.headers["idempotency-key"] === "string" ? request.headers["idempotency-key"] : null;
    const record: AdyenRequest = {
      method,
      route,
      path: url.pathname,
      query: url.search,
      body,
      idempotencyKey: key,
      errors: [],
      answerErrors: [],
      status: 0,
    };
    if (request.headers["x-api-key"] !== apiKey) {
      record.errors.push("X-API-Key is not this account's API key");
      return { ...serviceError(401, "HTTP Status Response - Unauthorized", "000"), record };
    }
    const operation = CHECKOUT_SCHEMAS.operations[route];
    let parsed: Json = {};
    if (!operation) record.errors.push(`${route}: no published schema copied for this call`);
    else if (method === "GET") {
      if (body !== "") record.errors.push("a GET carries no body");
      const query = Object.fromEntries(url.searchParams);
      if (url.searchParams.size !== Object.keys(query).length) record.errors.push("a query parameter is given twice");
      if (operation.query) record.errors.push(...schemaErrors(operation.query, query, "query"));
    } else {
      if (url.search) record.errors.push("a POST carries its fields in the body");
      if (!/^application\/json\b/.test(request.headers["content-type"] ?? "")) record.errors.push("the body is not JSON");
      try {
        parsed = JSON.parse(body);
        if (operation.requestBody) record.errors.push(...schemaErrors(operation.requestBody, parsed));
      } catch {
        record.errors.push("the body does not parse as JSON");
      }
    }
    if (record.errors.length > 0) return { ...serviceError(422, record.errors.join("; ")), record };
    if (method === "POST" && key) {
      const earlier = idempotent.get(`${route} ${key}`);
      if (earlier) {
        // Adyen answers a key again with its first answer; Paylink must send the same request under it.
        if (earlier.body !== body) {
          record.errors.push("an Idempotency-Key reused for a different request");
          return { ...serviceError(422, "Idempotency key reused with a different request", "704"), record };
        }
        return { status: earlier.status, answer: earlier.answer, record };
      }
    }
    if (refusing?.path.test(url.pathname)) {
      const { message, errorCode } = refusing;
      refusing = undefined;
      return { status: 422, answer: { ...example("422"), message, errorCode, pspReference: pspReference() }, record };
    }
    const pathPsp = () => decodeURIComponent(url.pathname.split("/")[3]!);
    let result: { status: number; answer: Json };
    if (route === "POST /v71/sessions") result = createSession(parsed);
    else if (route === "GET /v71/sessions/{sessionId}") result = sessionResult(pathPsp(), url.searchParams);
    else if (route === "POST /v71/payments") result = charge(parsed);
    else result = modify(url.pathname.split("/")[4] as FakeModification["kind"], pathPsp(), parsed);
    if (operation && result.status === operation.response.status) {
      record.answerErrors.push(...schemaErrors(operation.response.schema, result.answer, "", "answer"));
    }
    if (method === "POST" && key) idempotent.set(`${route} ${key}`, { body, ...result });
    return { ...result, record };
  };

  const page = (session: FakeSession, message: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Adyen Hosted Checkout (test)</title></head>
<body><h1>Pay ${session.amount.value} ${session.amount.currency}</h1>
<p role="alert">${message}</p>
<form method="post" action="/checkoutshopper/sessions/${session.id}">
<input name="cardNumber" autocomplete="cc-number"><input name="expiryDate"><input name="securityCode">
<button>Pay</button></form></body></html>`;

  /** The shopper's card on the page: a payment authorised (the session completes), or a refusal that leaves it open. */
  const payOnPage = (session: FakeSession, card: string): { approved: boolean; psp: string } => {
    const psp = pspReference();
    if (card !== ADYEN_TEST_CARDS.approved) return { approved: false, psp };
    session.status = "completed";
    session.payments.push({ pspReference: psp, resultCode: "Authorised", amount: { ...session.amount } });
    session.sessionResult = `X3XtfGC9!${randomBytes(32).toString("base64")}`;
    if (session.saveCard) {
      session.storedPaymentMethodId = pspReference();
      storedMethods.set(session.storedPaymentMethodId, session.shopperReference ?? "");
    }
    payments.set(psp, {
      pspReference: psp,
      merchantAccount: session.merchantAccount,
      reference: session.reference,
      amount: { ...session.amount },
    });
    return { approved: true, psp };
  };

  const http = await startFakeServer((request, url, body, send) => {
    if (url.pathname.startsWith("/v71/")) {
      const { status, answer, record } = handleApi(request, url, body);
      record.status = status;
      requests.push(record);
      return send(status, "application/json", JSON.stringify(answer), { pspReference: pspReference() });
    }
    const threeDS = /^\/checkoutshopper\/threeDS\/redirect\/([^/]+)$/.exec(url.pathname);
    if (threeDS) {
      // The shopper authenticates (at once, here): the charge is authorised and notified, and the
      // shopper goes back to the returnUrl with Adyen's redirectResult.
      const challenge = challenges.get(threeDS[1]!);
      if (!challenge || request.method !== "GET") return send(404, "text/html; charset=utf-8", "<p>Not found</p>");
      if (!challenge.done) {
        challenge.done = true;
        authorise(challenge.pspReference, challenge.body);
      }
      const back = new URL(challenge.body.returnUrl);
      back.searchParams.set("redirectResult", randomBytes(16).toString("base64url"));
      return send(303, "text/html; charset=utf-8", "", { location: back.toString() });
    }
    const pay = /^\/checkoutshopper\/sessions\/([^/]+)$/.exec(url.pathname);
    const session = pay && sessions.get(pay[1]!);
    if (!session) return send(404, "text/html; charset=utf-8", "<p>Not found</p>");
    if (session.status === "active" && Date.parse(session.expiresAt) < Date.now()) session.status = "expired";
    if (session.status !== "active") return send(410, "text/html; charset=utf-8", `<p>This payment session is ${session.status}.</p>`);
    if (request.method === "GET") return send(200, "text/html; charset=utf-8", page(session, ""));
    const card = (new URLSearchParams(body).get("cardNumber") ?? "").replace(/\s/g, "");
    const paid = payOnPage(session, card);
    if (!paid.approved) {
      notifyLater(() => [authorisationItem(session.id, { success: false, pspReference: paid.psp })]);
      return send(200, "text/html; charset=utf-8", page(session, "Refused. Try another card."));
    }
    // Adyen's page appends the session and its result to the returnUrl.
    const back = new URL(session.returnUrl);
    back.searchParams.set("sessionId", session.id);
    back.searchParams.set("sessionResult", session.sessionResult!);
    send(303, "text/html; charset=utf-8", "", { location: back.toString() });
    notifyLater(() => [authorisationItem(session.id)]);
  });
  origin = http.origin;

  return Object.assign(fake, {
    origin,
    baseUrl: origin,
    apiKey,
    hmacKey,
    merchantAccount,
    requests,
    notifications,
    sessions,
    webhookUrl: null,
    autoNotifications: true,
    resultListsPayments: true,
    loseNextAnswer: http.loseNextAnswer,
    refuseNext(path: RegExp, message: string, errorCode = "137") {
      refusing = { path, message, errorCode };
    },
    requireShopperFor(storedPaymentMethodId: string) {
      shopperMethods.add(storedPaymentMethodId);
    },
    payments,
    modifications,
    disputeItem,
    authorisationItem,
    sendNotification,
    close: http.close,
  } satisfies FakeAdyen);
}
