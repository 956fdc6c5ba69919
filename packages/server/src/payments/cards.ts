// Card-number facts that are safe to compute and keep: brand, masked number, last four. The full
// number and the CVC only ever live in memory for the length of one processor call.

/** Luhn (mod 10) check over a string of digits. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let digit = digits.charCodeAt(i) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

export type CardBrand = "VI" | "MC" | "AX" | "DI" | "JC" | "DC" | "UP" | "OT";

/**
 * Two-letter brand codes, as card processors report them (Visa `VI`, Mastercard `MC`…); the
 * webhook's `paymentMethod` carries the same code.
 */
const BRANDS: Array<{ brand: CardBrand; test: (d: string) => boolean }> = [
  { brand: "VI", test: (d) => d.startsWith("4") },
  {
    brand: "MC",
    test: (d) => /^5[1-5]/.test(d) || (Number(d.slice(0, 4)) >= 2221 && Number(d.slice(0, 4)) <= 2720),
  },
  { brand: "AX", test: (d) => /^3[47]/.test(d) },
  { brand: "DC", test: (d) => /^3(0[0-5]|[689])/.test(d) },
  { brand: "JC", test: (d) => Number(d.slice(0, 4)) >= 3528 && Number(d.slice(0, 4)) <= 3589 },
  { brand: "DI", test: (d) => /^(6011|65|64[4-9])/.test(d) },
  { brand: "UP", test: (d) => d.startsWith("62") },
];

/** What a person calls each brand: receipts and pages show these, never the two-letter code. */
const BRAND_NAMES: Record<string, string> = {
  VI: "Visa",
  MC: "Mastercard",
  AX: "American Express",
  DI: "Discover",
  JC: "JCB",
  DC: "Diners Club",
  UP: "UnionPay",
};

/** The brand's name, or undefined for one without a name (`OT`, or a code a processor made up). */
export function cardBrandName(code: string | null | undefined): string | undefined {
  return code ? BRAND_NAMES[code] : undefined;
}

/** How a card is named to a person: "Visa •••• 1111", or "•••• 1111" for a brand without a name. */
export function cardDisplayName(code: string | null | undefined, last4: string | null | undefined): string {
  return [cardBrandName(code), last4 ? `•••• ${last4}` : null].filter(Boolean).join(" ");
}

export function cardBrand(digits: string): { brand: CardBrand; paymentMethod: CardBrand } {
  const brand = BRANDS.find((b) => b.test(digits))?.brand ?? "OT";
  return { brand, paymentMethod: brand };
}

/**
 * `411111******1111`: at most the first six and the last four digits (PCI DSS display rule). Short
 * numbers show fewer leading digits, so that at least a third of the number stays hidden.
 */
export function maskCardNumber(digits: string): string {
  const last4 = digits.slice(-4);
  const lead = Math.max(0, Math.min(6, digits.length - 4 - Math.ceil(digits.length / 3)));
  return digits.slice(0, lead) + "*".repeat(digits.length - lead - 4) + last4;
}

export function lastFour(digits: string): string {
  return digits.slice(-4);
}

/** Expiry as the webhook and receipts show it: `MM/YYYY`. */
export function formatExpiry(month: number, year: number): string {
  return `${String(month).padStart(2, "0")}/${year}`;
}
