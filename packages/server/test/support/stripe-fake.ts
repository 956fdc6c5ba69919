// A local Stripe for tests of the Stripe adapter: an HTTP server on 127.0.0.1 that checks every
// request the adapter sends against Stripe's published request schemas (test/fixtures/stripe,
// from Stripe's OpenAPI document), keeps each one with its verdict, answers with objects built
// from Stripe's published examples, serves a bare Checkout page a test can pay on over plain
// HTTP, and sends signed webhook events the way Stripe signs them. After the sale it charges saved
// cards off-session (with a 3-D Secure page of its own), refunds (at once, or pending until a test
// settles them by event), cancels, captures and raises authorisations, and sends dispute events.
// Card numbers are Stripe's test cards: 4242424242424242 approves, 4000000000000002 is declined
// (the page stays open), 4000000000000341 is saved but every later charge of it is declined, and
// 4000002760003184 is saved but every off-session charge of it needs the cardholder (3-D Secure).
import { createHmac, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { type Send, startFakeServer } from "./fake-server.ts";

const FIXTURES = new URL("../fixtures/stripe/", import.meta.url);
export const REQUEST_SCHEMAS = JSON.parse(readFileSync(new URL("request-schemas.json", FIXTURES), "utf8")) as Record<string, Schema>;
export const EXAMPLE_OBJECTS = JSON.parse(readFileSync(new URL("example-objects.json", FIXTURES), "utf8")) as Record<string, Json>;

export const STRIPE_TEST_CARDS = {
  approved: "4242424242424242",
  declined: "4000000000000002",
  chargeFails: "4000000000000341",
  authenticationRequired: "4000002760003184",
} as const;

type Json = any;

// ── Stripe's form encoding, decoded, and the schema subset checked ──

export interface Schema {
  type?: string;
  format?: string;
  enum?: string[];
  maxLength?: number;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
}

type Decoded = string | { [key: string]: Decoded } | Decoded[];

/** `a[b][0][c]=1&expand[]=x` → `{ a: { b: { "0": { c: "1" } } }, expand: ["x"] }`; throws on a name used twice. */
export function decodeStripeForm(body: string): Record<string, Decoded> {
  const root: Record<string, Decoded> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name);
    if (!match) throw new Error(`malformed parameter name ${JSON.stringify(name)}`);
    const segments = [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)];
    let node: Record<string, Decoded> | Decoded[] = root;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i]!;
      const last = i === segments.length - 1;
      if (Array.isArray(node)) {
        if (segment !== "" || !last) throw new Error(`${name}: only a list of values may use []`);
        node.push(value);
        break;
      }
      const next = segments[i + 1];
      if (last) {
        if (segment in node) throw new Error(`${name} is given twice`);
        node[segment] = value;
        break;
      }
      const existing: Decoded | undefined = node[segment];
      if (existing === undefined) node[segment] = next === "" ? [] : {};
      else if (typeof existing === "string" || Array.isArray(existing) !== (next === "")) throw new Error(`${name} mixes shapes`);
      node = node[segment] as Record<string, Decoded> | Decoded[];
    }
  }
  return root;
}

/** Errors of a decoded form value against one of Stripe's request schemas (the subset its form parameters use). */
export function schemaErrors(schema: Schema, value: Decoded, path = ""): string[] {
  const at = path || "(body)";
  if (schema.anyOf) {
    const each = schema.anyOf.map((alternative) => schemaErrors(alternative, value, path));
    return each.some((errors) => errors.length === 0) ? [] : [`${at}: matches none of its forms (${each.flat().join("; ")})`];
  }
  switch (schema.type) {
    case "object": {
      if (typeof value !== "object" || Array.isArray(value)) return [`${at}: must be an object`];
      const errors: string[] = [];
      for (const [key, inner] of Object.entries(value)) {
        const child =
          schema.properties?.[key] ?? (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
        if (!child) errors.push(`${path ? `${path}[${key}]` : key}: unknown parameter`);
        else errors.push(...schemaErrors(child, inner, path ? `${path}[${key}]` : key));
      }
      for (const key of schema.required ?? []) if (!(key in value)) errors.push(`${path ? `${path}[${key}]` : key}: missing`);
      return errors;
    }
    case "array": {
      let items: Decoded[];
      if (Array.isArray(value)) items = value;
      else if (typeof value === "object") {
        const keys = Object.keys(value);
        if (!keys.every((key, index) => key === String(index))) return [`${at}: list indexes must run 0, 1, 2…`];
        items = keys.map((key) => value[key]!);
      } else return [`${at}: must be a list`];
      return items.flatMap((item, index) => (schema.items ? schemaErrors(schema.items, item, `${path}[${index}]`) : []));
    }
    case "string": {
      if (typeof value !== "string") return [`${at}: must be a string`];
      if (schema.maxLength !== undefined && value.length > schema.maxLength) return [`${at}: longer than ${schema.maxLength}`];
      if (schema.enum && !schema.enum.includes(value)) return [`${at}: not one of ${schema.enum.join(", ")}`];
      if (schema.format === "currency" && !/^[a-z]{3}$/.test(value)) return [`${at}: not a lower-case currency code`];
      return [];
    }
    case "integer":
      return typeof value === "string" && /^-?\d+$/.test(value) ? [] : [`${at}: must be an integer`];
    case "number":
      return typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value) ? [] : [`${at}: must be a number`];
    case "boolean":
      return value === "true" || value === "false" ? [] : [`${at}: must be true or false`];
    default:
      return schema.enum && (typeof value !== "string" || !schema.enum.includes(value))
        ? [`${at}: not one of ${schema.enum.join(", ")}`]
        : [];
  }
}

// ── The fake ──

export interface StripeRequest {
  method: string;
  /** The route as the schemas name it, e.g. `POST /v1/checkout/sessions`. */
  route: string;
  path: string;
  query: string;
  body: string;
  idempotencyKey: string | null;
  /** Schema and authorisation errors; empty when Stripe would take the request. */
  errors: string[];
  status: number;
}

export interface DeliveredEvent {
  id: string;
  type: string;
  status: number;
}

export interface FakeStripe {
  origin: string;
  /** What a terminal is configured with: this fake's base, the part before `/v1`. */
  baseUrl: string;
  secretKey: string;
  webhookSecret: string;
  requests: StripeRequest[];
  events: DeliveredEvent[];
  sessions: Map<string, Json>;
  paymentIntents: Map<string, Json>;
  charges: Map<string, Json>;
  refunds: Map<string, Json>;
  /** Where events go (the terminal's webhookUrl); none are sent before it is set. */
  webhookUrl: string | null;
  /** Whether a payment on the page sends its `checkout.session.completed` by itself (default true). */
  autoEvents: boolean;
  /** The next request whose path matches is carried out, but its answer never reaches the caller. */
  loseNextAnswer(path: RegExp): void;
  /** Sends one event about a session, signed with the endpoint secret (or another, or at another time). */
  sendEvent(type: string, sessionId: string, options?: EventOptions): Promise<number>;
  /** Sends one event about any object (a PaymentIntent, a refund, a dispute), as it is now. */
  sendObjectEvent(type: string, object: Json, options?: EventOptions): Promise<number>;
  /** Refunds are answered `pending` (as Stripe may) until this is set back; settleRefund decides them. */
  refundsPending: boolean;
  /** Decides a pending refund and sends Stripe's two events about it (refund.updated, charge.refund.updated). */
  settleRefund(refundId: string, outcome: "succeeded" | "failed"): Promise<void>;
  /** Opens a dispute on a PaymentIntent's charge, as the cardholder's bank would; returns the dispute. */
  openDispute(paymentIntentId: string, options?: { status?: string; reason?: string }): Json;
  /** The Stripe-Signature header of a payload as Stripe builds it. */
  signatureHeader(payload: string, options?: { secret?: string; timestamp?: number }): string;
  close(): Promise<void>;
}

export interface EventOptions {
  secret?: string;
  timestamp?: number;
  eventId?: string;
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const secretKey = `sk_test_${randomBytes(12).toString("hex")}`;
  const webhookSecret = `whsec_${randomBytes(16).toString("base64url")}`;
  const requests: StripeRequest[] = [];
  const events: DeliveredEvent[] = [];
  const sessions = new Map<string, Json>();
  const paymentIntents = new Map<string, Json>();
  const setupIntents = new Map<string, Json>();
  const charges = new Map<string, Json>();
  const paymentMethods = new Map<string, Json>();
  const refunds = new Map<string, Json>();
  const disputes = new Map<string, Json>();
  /** Per saved PaymentMethod: how its later charges go (Stripe's test cards decide it). */
  const methodBehaviour = new Map<string, "approve" | "decline" | "authenticate">();
  /** Per session: what the page needs that the session object does not show. */
  const sessionTerms = new Map<string, { amount: number; captureManual: boolean; saveCard: boolean }>();
  const idempotent = new Map<string, { body: string; status: number; answer: Json }>();
  let origin = "";
  const fake = {} as FakeStripe;

  const id = (prefix: string) => `${prefix}_${randomBytes(12).toString("base64url").replace(/[-_]/g, "x")}`;
  const now = () => Math.floor(Date.now() / 1000);
  const example = (name: string): Json => structuredClone(EXAMPLE_OBJECTS[name]);
  const stripeError = (status: number, message: string, code?: string) => ({
    status,
    answer: { error: { type: status === 401 ? "invalid_request_error" : "invalid_request_error", message, ...(code ? { code } : {}) } },
  });

  const signatureHeader = (payload: string, options: { secret?: string; timestamp?: number } = {}) => {
    const timestamp = options.timestamp ?? now();
    const signature = createHmac("sha256", options.secret ?? webhookSecret)
      .update(`${timestamp}.${payload}`)
      .digest("hex");
    return `t=${timestamp},v1=${signature}`;
  };

  const sendEvent = (type: string, sessionId: string, options: EventOptions = {}) => {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    return sendObjectEvent(type, session, options);
  };

  const sendObjectEvent = async (type: string, object: Json, options: EventOptions = {}) => {
    if (!fake.webhookUrl) throw new Error("no webhook address");
    const event = {
      ...example("event"),
      id: options.eventId ?? id("evt"),
      type,
      created: now(),
      api_version: "2026-07-29.dahlia",
      data: { object: structuredClone(object) },
    };
    const payload = JSON.stringify(event, null, 2);
    const response = await fetch(fake.webhookUrl, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": signatureHeader(payload, options) },
      body: payload,
    });
    await response.arrayBuffer();
    events.push({ id: event.id, type, status: response.status });
    return response.status;
  };

  /** A session as GET answers it, with the expansions asked for. */
  const expanded = (session: Json, expand: string[]): Json => {
    const copy = structuredClone(session);
    if (expand.includes("payment_intent") || expand.includes("payment_intent.latest_charge")) {
      const intent = copy.payment_intent && structuredClone(paymentIntents.get(copy.payment_intent));
      if (intent && expand.includes("payment_intent.latest_charge") && intent.latest_charge) {
        intent.latest_charge = structuredClone(charges.get(intent.latest_charge));
      }
      if (intent) copy.payment_intent = intent;
    }
    if (expand.includes("setup_intent") || expand.includes("setup_intent.payment_method")) {
      const intent = copy.setup_intent && structuredClone(setupIntents.get(copy.setup_intent));
      if (intent && expand.includes("setup_intent.payment_method") && intent.payment_method) {
        intent.payment_method = structuredClone(paymentMethods.get(intent.payment_method));
      }
      if (intent) copy.setup_intent = intent;
    }
    return copy;
  };

  const createSession = (params: Json): { status: number; answer: Json } => {
    const mode = params.mode;
    const created = now();
    const expiresAt = params.expires_at === undefined ? created + 24 * 3600 : Number(params.expires_at);
    // Stripe: "anywhere from 30 minutes to 24 hours after Checkout Session creation".
    if (expiresAt < created + 30 * 60 || expiresAt > created + 24 * 3600)
      return stripeError(400, "expires_at must be 30 minutes to 24 hours ahead");
    if (typeof params.success_url !== "string") return stripeError(400, "success_url is required in hosted mode");
    let amount = 0;
    let currency: string | null = null;
    if (mode === "payment") {
      const lines: Json[] = Object.values(params.line_items ?? {});
      if (lines.length === 0) return stripeError(400, "line_items is required in payment mode");
      for (const line of lines) {
        if (!line.price_data || line.price_data.unit_amount === undefined || line.quantity === undefined)
          return stripeError(400, "each line needs price_data and quantity");
        amount += Number(line.price_data.unit_amount) * Number(line.quantity);
        currency = line.price_data.currency;
      }
      if (currency === "isk" && amount % 100 !== 0)
        return stripeError(400, "Currency ISK has become effectively zero-decimal", "invalid_charge_amount_no_decimal_compatible");
    } else if (mode === "setup") {
      if (params.line_items) return stripeError(400, "line_items is not allowed in setup mode");
      if (!params.currency) return stripeError(400, "currency is required in setup mode");
      currency = params.currency;
    } else return stripeError(400, `mode ${mode} is not served by this fake`);
    const session = {
      ...example("checkout.session"),
      id: `cs_test_${randomBytes(29).toString("base64url").replace(/[-_]/g, "a")}`,
      object: "checkout.session",
      mode,
      status: "open",
      payment_status: mode === "setup" ? "no_payment_required" : "unpaid",
      amount_subtotal: mode === "setup" ? null : amount,
      amount_total: mode === "setup" ? null : amount,
      currency,
      client_reference_id: params.client_reference_id ?? null,
      metadata: params.metadata ?? {},
      success_url: params.success_url,
      cancel_url: params.cancel_url ?? null,
      created,
      expires_at: expiresAt,
      locale: params.locale ?? null,
      customer: null,
      customer_creation: params.customer_creation ?? null,
      // Since 2022-08-01 the PaymentIntent or SetupIntent is made when the shopper pays.
      payment_intent: null,
      setup_intent: null,
      livemode: false,
      ui_mode: "hosted_page",
    };
    session.url = `${origin}/c/pay/${session.id}`;
    sessions.set(session.id, session);
    sessionTerms.set(session.id, {
      amount,
      captureManual: params.payment_intent_data?.capture_method === "manual",
      saveCard: params.payment_intent_data?.setup_future_usage === "off_session" || mode === "setup",
    });
    return { status: 200, answer: session };
  };

  /** The shopper's card on the Checkout page: a session completed, or a decline that leaves it open. */
  /** A charge of a PaymentIntent as Stripe makes it: captured now, or held for a manual capture. */
  const makeCharge = (intentId: string, amount: number, currency: string, method: Json, captureManual: boolean): Json => {
    const charge = {
      ...example("charge"),
      id: id("ch"),
      amount,
      amount_captured: captureManual ? 0 : amount,
      amount_refunded: 0,
      refunded: false,
      captured: !captureManual,
      currency,
      payment_intent: intentId,
      payment_method: method.id,
      status: "succeeded",
    };
    charge.payment_method_details = {
      type: "card",
      card: {
        ...charge.payment_method_details.card,
        brand: method.card.brand,
        last4: method.card.last4,
        funding: method.card.funding,
        exp_month: method.card.exp_month,
        exp_year: method.card.exp_year,
        authorization_code: "123456",
      },
    };
    charges.set(charge.id, charge);
    return charge;
  };

  /** The shopper's card on the Checkout page: a session completed, or a decline that leaves it open. */
  const payOnPage = (session: Json, card: string): { declined: boolean } => {
    const behaviour =
      card === STRIPE_TEST_CARDS.approved
        ? "approve"
        : card === STRIPE_TEST_CARDS.chargeFails
          ? "decline"
          : card === STRIPE_TEST_CARDS.authenticationRequired
            ? "authenticate"
            : undefined;
    // 0341 is attached to a Customer fine but declined when charged, on the page too.
    if (behaviour === undefined || (behaviour === "decline" && session.mode !== "setup")) return { declined: true };
    const terms = sessionTerms.get(session.id)!;
    const customer = session.customer_creation === "always" ? id("cus") : null;
    const method = {
      ...example("payment_method"),
      id: id("pm"),
      customer: terms.saveCard ? customer : null,
      metadata: {},
      billing_details: { ...example("payment_method").billing_details, email: null, phone: null },
    };
    method.card = {
      ...method.card,
      brand: "visa",
      last4: card.slice(-4),
      exp_month: 12,
      exp_year: new Date().getUTCFullYear() + 3,
      funding: "credit",
    };
    paymentMethods.set(method.id, method);
    methodBehaviour.set(method.id, behaviour);
    if (session.mode === "setup") {
      const intent = {
        ...example("setup_intent"),
        id: id("seti"),
        status: "succeeded",
        customer,
        payment_method: method.id,
        last_setup_error: null,
        next_action: null,
        metadata: {},
      };
      setupIntents.set(intent.id, intent);
      Object.assign(session, { status: "complete", setup_intent: intent.id, customer });
      return { declined: false };
    }
    const intentId = id("pi");
    const charge = makeCharge(intentId, terms.amount, session.currency, method, terms.captureManual);
    const intent = {
      ...example("payment_intent"),
      id: intentId,
      amount: terms.amount,
      amount_received: terms.captureManual ? 0 : terms.amount,
      amount_capturable: terms.captureManual ? terms.amount : 0,
      currency: session.currency,
      capture_method: terms.captureManual ? "manual" : "automatic_async",
      status: terms.captureManual ? "requires_capture" : "succeeded",
      latest_charge: charge.id,
      payment_method: method.id,
      customer: terms.saveCard ? customer : null,
      setup_future_usage: terms.saveCard ? "off_session" : null,
      last_payment_error: null,
      next_action: null,
      canceled_at: null,
      metadata: { checkoutReference: session.client_reference_id },
    };
    paymentIntents.set(intent.id, intent);
    Object.assign(session, {
      status: "complete",
      payment_status: terms.captureManual ? "unpaid" : "paid",
      payment_intent: intent.id,
      customer,
    });
    return { declined: false };
  };

  /** A card error as Stripe answers it (HTTP 402), naming the PaymentIntent the attempt left. */
  const cardError = (intent: Json, code: string, declineCode: string, message: string) => {
    intent.last_payment_error = { type: "card_error", code, decline_code: declineCode, message };
    intent.status = "requires_payment_method";
    return {
      status: 402,
      answer: { error: { type: "card_error", code, decline_code: declineCode, message, payment_intent: structuredClone(intent) } },
    };
  };

  /** A PaymentIntent as an answer, its latest_charge expanded when asked for. */
  const intentAnswer = (intent: Json, expand: string[] = []) => {
    const copy = structuredClone(intent);
    if (expand.includes("latest_charge") && copy.latest_charge) copy.latest_charge = structuredClone(charges.get(copy.latest_charge));
    return { status: 200, answer: copy };
  };

  /** A saved card charged off-session (POST /v1/payment_intents with confirm and off_session). */
  const chargeSavedCard = (params: Json): { status: number; answer: Json } => {
    const method = paymentMethods.get(params.payment_method);
    if (!method) return stripeError(400, `No such PaymentMethod: '${params.payment_method}'`, "resource_missing");
    if (method.customer !== params.customer)
      return stripeError(
        400,
        "The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment",
        "payment_method_not_attached",
      );
    if (params.confirm !== "true" || params.off_session !== "true")
      return stripeError(400, "this fake charges saved cards off-session only");
    const amount = Number(params.amount);
    if (params.currency === "isk" && amount % 100 !== 0)
      return stripeError(400, "Currency ISK has become effectively zero-decimal", "invalid_charge_amount_no_decimal_compatible");
    const intent: Json = {
      ...example("payment_intent"),
      id: id("pi"),
      amount,
      amount_received: 0,
      amount_capturable: 0,
      currency: params.currency,
      capture_method: params.capture_method ?? "automatic",
      customer: params.customer,
      payment_method: method.id,
      setup_future_usage: null,
      last_payment_error: null,
      next_action: null,
      latest_charge: null,
      canceled_at: null,
      created: now(),
      metadata: params.metadata ?? {},
    };
    paymentIntents.set(intent.id, intent);
    const behaviour = methodBehaviour.get(method.id);
    // Stripe sends the failure's event too, whatever the caller makes of the answer.
    const failed = () => queueEvent("payment_intent.payment_failed", intent);
    if (behaviour === "decline") {
      const error = cardError(intent, "card_declined", "insufficient_funds", "Your card has insufficient funds.");
      failed();
      return error;
    }
    if (behaviour === "authenticate") {
      const error = cardError(
        intent,
        "authentication_required",
        "authentication_required",
        "Your card was declined. This transaction requires authentication.",
      );
      failed();
      return error;
    }
    succeed(intent);
    // A decoded list comes as { "0": … } (Stripe's form encoding of expand[0]).
    return intentAnswer(intent, Object.values(params.expand ?? {}));
  };

  /** The charge goes through: captured, or held when the PaymentIntent captures manually; its event follows. */
  const succeed = (intent: Json) => {
    const manual = intent.capture_method === "manual";
    const charge = makeCharge(intent.id, intent.amount, intent.currency, paymentMethods.get(intent.payment_method), manual);
    Object.assign(intent, {
      status: manual ? "requires_capture" : "succeeded",
      amount_received: manual ? 0 : intent.amount,
      amount_capturable: manual ? intent.amount : 0,
      latest_charge: charge.id,
      last_payment_error: null,
      next_action: null,
    });
    queueEvent(manual ? "payment_intent.amount_capturable_updated" : "payment_intent.succeeded", intent);
  };

  /** Stripe sends events on its own, never inside the request that caused them. */
  const queueEvent = (type: string, object: Json) => {
    if (!fake.webhookUrl || !fake.autoEvents) return;
    const snapshot = structuredClone(object);
    setTimeout(() => void sendObjectEvent(type, snapshot).catch(() => undefined), 20);
  };

  /** A refund of a charge, in full or of `amount`; pending (until settleRefund) when the fake is told so. */
  const refundCharge = (intent: Json, params: Json): { status: number; answer: Json } => {
    const charge = charges.get(intent.latest_charge);
    const left = charge.amount_captured - charge.amount_refunded;
    if (left <= 0) return stripeError(400, `Charge ${charge.id} has already been refunded.`, "charge_already_refunded");
    const amount = params.amount === undefined ? left : Number(params.amount);
    if (amount > left)
      return stripeError(400, `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`, "amount_too_large");
    // Stripe counts a pending refund as refunded; a failed one gives its amount back.
    charge.amount_refunded += amount;
    charge.refunded = charge.amount_refunded === charge.amount_captured;
    const refund = {
      ...example("refund"),
      id: id("re"),
      amount,
      currency: charge.currency,
      charge: charge.id,
      payment_intent: intent.id,
      metadata: params.metadata ?? {},
      status: fake.refundsPending ? "pending" : "succeeded",
      failure_reason: null,
      created: now(),
    };
    refunds.set(refund.id, refund);
    queueEvent("refund.created", refund);
    return { status: 200, answer: structuredClone(refund) };
  };

  const settleRefund = async (refundId: string, outcome: "succeeded" | "failed") => {
    const refund = refunds.get(refundId);
    if (refund?.status !== "pending") throw new Error(`no pending refund ${refundId}`);
    refund.status = outcome;
    if (outcome === "failed") {
      refund.failure_reason = "expired_or_canceled_card";
      const charge = charges.get(refund.charge);
      charge.amount_refunded -= refund.amount;
      charge.refunded = false;
    }
    await sendObjectEvent("refund.updated", refund);
    await sendObjectEvent("charge.refund.updated", refund);
  };

  const openDispute = (paymentIntentId: string, options: { status?: string; reason?: string } = {}) => {
    const intent = paymentIntents.get(paymentIntentId);
    if (!intent) throw new Error(`no PaymentIntent ${paymentIntentId}`);
    const dispute = {
      ...example("dispute"),
      id: id("dp"),
      amount: intent.amount_received,
      currency: intent.currency,
      charge: intent.latest_charge,
      payment_intent: intent.id,
      reason: options.reason ?? "fraudulent",
      status: options.status ?? "needs_response",
      created: now(),
    };
    disputes.set(dispute.id, dispute);
    return dispute;
  };

  /** Stripe's hosted 3-D Secure page for a PaymentIntent confirmed with a return_url. */
  const authenticationUrl = (intent: Json) => `${origin}/3ds/${intent.id}`;

  const api = (method: string, path: string, query: URLSearchParams, params: Json): { status: number; answer: Json } => {
    const sessionPath = /^\/v1\/checkout\/sessions\/([^/]+)(\/expire)?$/.exec(path);
    const intentPath = /^\/v1\/payment_intents\/([^/]+)(?:\/(cancel|capture|confirm|increment_authorization))?$/.exec(path);
    const methodPath = /^\/v1\/payment_methods\/([^/]+)$/.exec(path);
    if (method === "POST" && path === "/v1/checkout/sessions") return createSession(params);
    if (method === "GET" && sessionPath && !sessionPath[2]) {
      const session = sessions.get(decodeURIComponent(sessionPath[1]!));
      return session
        ? { status: 200, answer: expanded(session, query.getAll("expand[]")) }
        : stripeError(404, "No such checkout.session", "resource_missing");
    }
    if (method === "POST" && sessionPath?.[2]) {
      const session = sessions.get(decodeURIComponent(sessionPath[1]!));
      if (!session) return stripeError(404, "No such checkout.session", "resource_missing");
      if (session.status !== "open")
        return stripeError(400, `Only Checkout Sessions with a status of open can be expired; this one is ${session.status}`);
      session.status = "expired";
      if (fake.autoEvents) queueMicrotask(() => void sendEvent("checkout.session.expired", session.id).catch(() => undefined));
      return { status: 200, answer: structuredClone(session) };
    }
    if (method === "GET" && methodPath) {
      const found = paymentMethods.get(decodeURIComponent(methodPath[1]!));
      return found ? { status: 200, answer: structuredClone(found) } : stripeError(404, "No such PaymentMethod", "resource_missing");
    }
    if (method === "POST" && path === "/v1/payment_intents") return chargeSavedCard(params);
    if (intentPath) {
      const intent = paymentIntents.get(decodeURIComponent(intentPath[1]!));
      if (!intent) return stripeError(404, "No such payment_intent", "resource_missing");
      const action = intentPath[2];
      const unexpectedState = (what: string) =>
        stripeError(
          400,
          `You cannot ${what} this PaymentIntent because it has a status of ${intent.status}`,
          "payment_intent_unexpected_state",
        );
      if (method === "GET" && !action) return intentAnswer(intent);
      if (method !== "POST") return stripeError(404, `Unrecognized request URL (${method}: ${path})`);
      if (action === "cancel") {
        // Stripe: cancellable while not succeeded, processing or canceled; a Checkout Session's only while requires_capture.
        const fromCheckout = [...sessions.values()].some((session) => session.payment_intent === intent.id);
        if (["succeeded", "processing", "canceled"].includes(intent.status) || (fromCheckout && intent.status !== "requires_capture"))
          return unexpectedState("cancel");
        Object.assign(intent, {
          status: "canceled",
          canceled_at: now(),
          cancellation_reason: params.cancellation_reason ?? null,
          amount_capturable: 0,
        });
        queueEvent("payment_intent.canceled", intent);
        return intentAnswer(intent);
      }
      if (action === "capture") {
        if (intent.status !== "requires_capture") return unexpectedState("capture");
        const amount = params.amount_to_capture === undefined ? intent.amount_capturable : Number(params.amount_to_capture);
        if (amount > intent.amount_capturable)
          return stripeError(400, "The amount to capture must be less than or equal to the amount capturable", "amount_too_large");
        // Captured once; Stripe releases whatever was not captured.
        const charge = charges.get(intent.latest_charge);
        Object.assign(charge, { captured: true, amount_captured: amount });
        Object.assign(intent, { status: "succeeded", amount_received: amount, amount_capturable: 0 });
        queueEvent("payment_intent.succeeded", intent);
        return intentAnswer(intent);
      }
      if (action === "increment_authorization") {
        if (intent.status !== "requires_capture") return unexpectedState("increment the authorization of");
        const amount = Number(params.amount);
        if (amount <= intent.amount)
          return stripeError(400, "The amount must be greater than the currently authorized amount", "parameter_invalid_integer");
        Object.assign(intent, { amount, amount_capturable: amount });
        Object.assign(charges.get(intent.latest_charge), { amount });
        return intentAnswer(intent);
      }
      if (action === "confirm") {
        if (intent.status !== "requires_payment_method" && intent.status !== "requires_confirmation") return unexpectedState("confirm");
        if (params.payment_method && params.payment_method !== intent.payment_method)
          return stripeError(400, "another payment method than the PaymentIntent's");
        if (methodBehaviour.get(intent.payment_method) === "authenticate" && params.return_url) {
          Object.assign(intent, {
            status: "requires_action",
            next_action: { type: "redirect_to_url", redirect_to_url: { url: authenticationUrl(intent), return_url: params.return_url } },
            last_payment_error: null,
          });
          queueEvent("payment_intent.requires_action", intent);
          return intentAnswer(intent);
        }
        return cardError(intent, "authentication_required", "authentication_required", "This transaction requires authentication.");
      }
    }
    if (method === "POST" && path === "/v1/refunds") {
      const intent = params.payment_intent && paymentIntents.get(params.payment_intent);
      if (!intent) return stripeError(400, "No such payment_intent", "resource_missing");
      if (intent.status !== "succeeded")
        return stripeError(
          400,
          `This PaymentIntent has a status of ${intent.status} and cannot be refunded`,
          "payment_intent_unexpected_state",
        );
      return refundCharge(intent, params);
    }
    return stripeError(404, `Unrecognized request URL (${method}: ${path})`);
  };

  /** The schema a request is checked against, by its route. */
  const routeOf = (method: string, path: string): string =>
    `${method} ${path
      .replace(/^\/v1\/checkout\/sessions\/[^/]+/, "/v1/checkout/sessions/{session}")
      .replace(/^\/v1\/payment_intents\/[^/]+/, "/v1/payment_intents/{intent}")
      .replace(/^\/v1\/payment_methods\/[^/]+/, "/v1/payment_methods/{payment_method}")}`;

  const handleApi = (request: IncomingMessage, url: URL, body: string): { status: number; answer: Json; record: StripeRequest } => {
    const method = request.method ?? "GET";
    const route = routeOf(method, url.pathname);
    const key = typeof request.headers["idempotency-key"] === "string" ? request.headers["idempotency-key"] : null;
    const record: StripeRequest = {
      method,
      route,
      path: url.pathname,
      query: url.search,
      body,
      idempotencyKey: key,
      errors: [],
      status: 0,
    };
    if (request.headers.authorization !== `Bearer ${secretKey}`) {
      record.errors.push("Authorization is not this account's Bearer secret key");
      return { ...stripeError(401, "Invalid API Key provided"), record };
    }
    const schema = REQUEST_SCHEMAS[route];
    let params: Json = {};
    // A GET without parameters has nothing to check; any other call needs its copied schema.
    if (!schema && !(method === "GET" && url.search === "")) record.errors.push(`${route}: no published schema copied for this call`);
    else if (!schema) params = {};
    else {
      try {
        // A GET carries its parameters in the query, a POST in its form body (never both).
        const form = method === "GET" ? url.search.slice(1) : body;
        if (method === "POST" && url.search) record.errors.push("a POST carries its parameters in the body");
        if (method === "POST" && body !== "" && !/^application\/x-www-form-urlencoded\b/.test(request.headers["content-type"] ?? "")) {
          record.errors.push("the body is not form-encoded");
        }
        params = decodeStripeForm(form);
        record.errors.push(...schemaErrors(schema, params));
      } catch (error) {
        record.errors.push((error as Error).message);
      }
    }
    if (record.errors.length > 0) return { ...stripeError(400, record.errors.join("; "), "parameter_invalid"), record };
    if (method === "POST" && key) {
      const earlier = idempotent.get(`${route} ${key}`);
      if (earlier) {
        if (earlier.body !== body)
          return {
            ...stripeError(
              400,
              "Keys for idempotent requests can only be used with the same parameters they were first used with.",
              "idempotency_key_in_use",
            ),
            record,
          };
        return { status: earlier.status, answer: earlier.answer, record };
      }
    }
    const { status, answer } = api(method, url.pathname, url.searchParams, params);
    if (method === "POST" && key) idempotent.set(`${route} ${key}`, { body, status, answer });
    return { status, answer, record };
  };

  const page = (session: Json, message: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Stripe Checkout (test)</title></head>
<body><h1>Pay ${session.amount_total ?? 0} ${session.currency ?? ""}</h1>
<p role="alert">${message}</p>
<form method="post" action="/c/pay/${session.id}">
<input name="cardNumber" autocomplete="cc-number"><input name="cardExpiry"><input name="cardCvc">
<button>Pay</button></form></body></html>`;

  /**
   * The cardholder on the bank's 3-D Secure page: GET shows it, POST completes it (`result=fail`
   * fails it), then back to the return_url the PaymentIntent was confirmed with; the result's
   * event follows.
   */
  const authenticate = (request: IncomingMessage, intent: Json, form: URLSearchParams, send: Send) => {
    if (intent?.status !== "requires_action") return send(410, "text/html; charset=utf-8", "<p>Nothing to authenticate.</p>");
    if (request.method === "GET")
      return send(
        200,
        "text/html; charset=utf-8",
        `<form method="post"><button name="result" value="pass">Complete</button><button name="result" value="fail">Fail</button></form>`,
      );
    const returnUrl = intent.next_action.redirect_to_url.return_url as string;
    if (form.get("result") === "fail") {
      Object.assign(intent, {
        status: "requires_payment_method",
        next_action: null,
        last_payment_error: {
          type: "invalid_request_error",
          code: "payment_intent_authentication_failure",
          message: "The provided PaymentMethod has failed authentication.",
        },
      });
      queueEvent("payment_intent.payment_failed", intent);
    } else succeed(intent);
    const location = new URL(returnUrl);
    location.searchParams.set("payment_intent", intent.id);
    send(303, "text/html; charset=utf-8", "", { location: location.toString() });
  };

  const http = await startFakeServer((request, url, body, send) => {
    if (url.pathname.startsWith("/v1/")) {
      let handled: ReturnType<typeof handleApi>;
      try {
        handled = handleApi(request, url, body);
      } catch (error) {
        // A fault of the fake itself: answered as Stripe answers its own faults, never left hanging.
        return send(500, "application/json", JSON.stringify({ error: { type: "api_error", message: String(error) } }));
      }
      const { status, answer, record } = handled;
      record.status = status;
      requests.push(record);
      return send(status, "application/json", JSON.stringify(answer, null, 2), { "request-id": id("req") });
    }
    const authentication = /^\/3ds\/([^/]+)$/.exec(url.pathname);
    if (authentication) return authenticate(request, paymentIntents.get(authentication[1]!), new URLSearchParams(body), send);
    const pay = /^\/c\/pay\/([^/]+)$/.exec(url.pathname);
    const session = pay && sessions.get(pay[1]!);
    if (!session) return send(404, "text/html; charset=utf-8", "<p>Not found</p>");
    if (session.status !== "open") return send(410, "text/html; charset=utf-8", `<p>This Checkout Session is ${session.status}.</p>`);
    if (request.method === "GET") return send(200, "text/html; charset=utf-8", page(session, ""));
    const card = (new URLSearchParams(body).get("cardNumber") ?? "").replace(/\s/g, "");
    if (payOnPage(session, card).declined) return send(402, "text/html; charset=utf-8", page(session, "Your card was declined."));
    const location = String(session.success_url).replaceAll("{CHECKOUT_SESSION_ID}", session.id);
    send(303, "text/html; charset=utf-8", "", { location });
    // Stripe sends the event on its own, not in the shopper's request.
    if (fake.webhookUrl && fake.autoEvents)
      setTimeout(() => void sendEvent("checkout.session.completed", session.id).catch(() => undefined), 20);
  });
  origin = http.origin;

  return Object.assign(fake, {
    origin,
    baseUrl: origin,
    secretKey,
    webhookSecret,
    requests,
    events,
    sessions,
    paymentIntents,
    charges,
    refunds,
    webhookUrl: null,
    autoEvents: true,
    refundsPending: false,
    settleRefund,
    openDispute,
    sendObjectEvent,
    loseNextAnswer: http.loseNextAnswer,
    sendEvent,
    signatureHeader,
    close: http.close,
  } satisfies FakeStripe);
}
