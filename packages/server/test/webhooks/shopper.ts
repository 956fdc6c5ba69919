// A shopper paying through the real hosted checkout page (SPEC §3): GET the page, post the form
// back with every hidden input the page emitted, as a browser would. Used by the webhook
// acceptance tests, the process tests and the latency benchmark.

export interface LinkRequest {
  type?: "PayByLink" | "TokenizeByLink";
  amount?: number;
  currency?: string;
  description?: string;
  returnUrl?: string;
  recurringProcessingModel?: "CardOnFile" | "Subscription" | "UnscheduledCardOnFile";
}

export async function createLink(
  baseUrl: string,
  apiKey: string,
  terminalIdentifier: string,
  request: LinkRequest = {},
): Promise<{ reference: string; url: string }> {
  const type = request.type ?? "PayByLink";
  const amount = type === "TokenizeByLink" ? 0 : (request.amount ?? 489000);
  const body = {
    type,
    terminalIdentifier,
    amount,
    currency: request.currency ?? "ISK",
    items: type === "TokenizeByLink" ? [] : [{ name: "Lopapeysa", quantity: 1, unitPrice: amount, amountWithoutDiscount: amount, amount }],
    culture: "en",
    ...(request.description !== undefined ? { description: request.description } : {}),
    ...(request.returnUrl !== undefined ? { returnUrl: request.returnUrl } : {}),
    ...(request.recurringProcessingModel !== undefined ? { recurringProcessingModel: request.recurringProcessingModel } : {}),
  };
  const response = await fetch(`${baseUrl}/api/v1/paymentlinks/create`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { paymentLinkReference?: string; url?: string };
  if (response.status !== 200 || !json.paymentLinkReference)
    throw new Error(`creating a link failed: ${response.status} ${JSON.stringify(json)}`);
  return { reference: json.paymentLinkReference, url: json.url! };
}

export interface Card {
  cardNumber: string;
  cardExpiry?: string;
  cardCvc?: string;
  cardHolder?: string;
}

export const APPROVED_VISA: Card = { cardNumber: "4111 1111 1111 1111" };
export const DECLINED_REFUSED: Card = { cardNumber: "4000 0000 0000 0002" };

export interface PaymentResult {
  status: number;
  /** From the 303 redirect to returnUrl, when the link has one. */
  checkoutReference: string | undefined;
  /** Date.now() when the payment's HTTP response had arrived (headers and body). */
  respondedAt: number;
}

/** The attributes of every `<input type="hidden">` of a page, entities decoded. */
export function hiddenInputs(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const tag of html.match(/<input\b[^>]*>/gi) ?? []) {
    const attribute = (name: string) => new RegExp(`\\s${name}="([^"]*)"`, "i").exec(tag)?.[1];
    if (attribute("type")?.toLowerCase() !== "hidden") continue;
    const name = attribute("name");
    if (name !== undefined) fields[decodeEntities(name)] = decodeEntities(attribute("value") ?? "");
  }
  return fields;
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_match, entity: string) => {
    const lower = entity.toLowerCase();
    if (lower.startsWith("#x")) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith("#")) return String.fromCodePoint(parseInt(lower.slice(1), 10));
    return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[lower]!;
  });
}

/** Opens the checkout page (baseUrl may point at any instance) and pays with `card`. */
export async function payLink(baseUrl: string, reference: string, card: Card = APPROVED_VISA): Promise<PaymentResult> {
  const page = await fetch(`${baseUrl}/pay/${reference}`);
  const html = await page.text();
  if (page.status !== 200)
    throw new Error(
      `the checkout page answered ${page.status}: ${html
        .replace(/<style[\s\S]*?<\/style>/g, "")
        .replace(/<[^>]+>/g, " ")
        .replace(/\s+/g, " ")
        .slice(0, 300)}`,
    );
  const expiryYear = String((new Date().getUTCFullYear() + 3) % 100).padStart(2, "0");
  const form = new URLSearchParams({
    ...hiddenInputs(html),
    cardNumber: card.cardNumber,
    cardExpiry: card.cardExpiry ?? `12/${expiryYear}`,
    cardCvc: card.cardCvc ?? "123",
    cardHolder: card.cardHolder ?? "Jón Jónsson",
  });
  const response = await fetch(`${baseUrl}/pay/${reference}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form.toString(),
    redirect: "manual",
  });
  await response.arrayBuffer();
  const respondedAt = Date.now();
  const location = response.headers.get("location");
  const checkoutReference = location ? (new URL(location).searchParams.get("checkoutReference") ?? undefined) : undefined;
  return { status: response.status, checkoutReference, respondedAt };
}
