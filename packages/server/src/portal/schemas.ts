// The portal's path and query parameters as TypeBox schemas: they type the handlers. Values the
// pages do not understand are ignored (a filter that cannot be read filters nothing), so most
// fields are plain optional text that the page reads with care.
import Type from "typebox";

/** References, theme keys and ids as Paylink issues them; anything else cannot exist. */
const Key = Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" });

export const ReferenceParams = Type.Object({ reference: Key });
export const IdParams = Type.Object({ id: Key });
export const WebhookDeliveryParams = Type.Object({ id: Key, deliveryId: Key });
/** A payment's action that asks first. */
export const PaymentActionParams = Type.Object({ id: Key, action: Type.Union([Type.Literal("refund"), Type.Literal("reverse")]) });

const Text = Type.Optional(Type.String({ maxLength: 200 }));

export const LinksQuery = Type.Object({
  status: Text,
  type: Text,
  search: Text,
  createdFrom: Text,
  createdTo: Text,
  page: Text,
  lang: Text,
});

/** A page of a paged section (the link's submissions). */
export const PageQuery = Type.Object({ page: Text, lang: Text });

export const PaymentsQuery = Type.Object({ from: Text, to: Text, search: Text, type: Text, result: Text, page: Text, lang: Text });

export const AuditQuery = Type.Object({ action: Text, person: Text, object: Text, from: Text, to: Text, page: Text, lang: Text });

/** A page number from the query (1-based on screen), 1 when missing or unreadable. */
export function pageNumber(text: string | undefined): number {
  return text && /^\d{1,6}$/.test(text) && Number(text) >= 1 ? Number(text) : 1;
}

/** A YYYY-MM-DD date from the query as the start of that day in UTC (Iceland), or undefined. */
export function dayStart(text: string | undefined): Date | undefined {
  if (!text || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const date = new Date(`${text}T00:00:00Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text ? undefined : date;
}
