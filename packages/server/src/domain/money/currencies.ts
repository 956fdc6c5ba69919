// Active ISO 4217 currency codes and their minor-unit exponents (the number of decimals).
// Checked in rather than read from Intl, because ICU also lists withdrawn currencies and its
// digit counts are display conventions, not ISO's. Precious metals, testing and "no currency"
// codes (XAU, XTS, XXX…) are left out: nothing can be paid in them.
import { AppError } from "../errors.ts";

const ZERO_DECIMALS = "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF";
const THREE_DECIMALS = "BHD IQD JOD KWD LYD OMR TND";
const FOUR_DECIMALS = "CLF UYW";
const TWO_DECIMALS =
  "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD " +
  "CAD CDF CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS " +
  "GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL " +
  "MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK " +
  "PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS " +
  "TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG";

function table(): ReadonlyMap<string, number> {
  const map = new Map<string, number>();
  const add = (codes: string, exponent: number) => {
    for (const code of codes.split(" ")) map.set(code, exponent);
  };
  add(ZERO_DECIMALS, 0);
  add(TWO_DECIMALS, 2);
  add(THREE_DECIMALS, 3);
  add(FOUR_DECIMALS, 4);
  return map;
}

/** ISO 4217 code → ISO minor-unit exponent. */
export const ISO_4217_EXPONENTS: ReadonlyMap<string, number> = table();

export function isKnownCurrency(code: string): boolean {
  return ISO_4217_EXPONENTS.has(code);
}

/**
 * How many decimals an API amount carries for this currency. It is ISO's exponent, except for
 * ISK: Straumur's payment-links API counts krónur in hundredths on the wire (an amount "must end in 00",
 * and 48900 is 489 kr.), so Paylink does the same to stay wire-compatible.
 */
export function wireExponent(code: string): number {
  if (code === "ISK") return 2;
  return ISO_4217_EXPONENTS.get(code) ?? 2;
}

/**
 * ISK amounts are whole krónur (2026): the wire counts hundredths, so an amount must end in 00.
 * Links, charges and refunds all check their amounts here.
 */
export function checkWholeKronur(amount: number, currency: string): void {
  if (currency === "ISK" && amount % 100 !== 0) {
    throw new AppError("IskNotWhole", `amount ${amount} is not valid for ISK: ISK amounts are in hundredths and must end in 00.`).at(
      "amount",
    );
  }
}

/** Decimals shown to a shopper: ISO's exponent (ISK shows whole krónur). */
export function displayExponent(code: string): number {
  return ISO_4217_EXPONENTS.get(code) ?? 2;
}
