// A wire amount in an English sentence of the services (an error message, a log line): the currency
// code, a space, the amount in major units with thousands separated by commas, written as the
// portal's and the checkout's English pages write it: 99999900 ISK → "ISK 999,999", 1250 EUR →
// "EUR 12.50". An amount finer than the currency shows (ISK hundredths) keeps the wire's decimals.
import { displayExponent, wireExponent } from "./currencies.ts";

export function moneyText(amount: number, currency: string): string {
  const wire = wireExponent(currency);
  const sign = amount < 0 ? "-" : "";
  const digits = String(Math.abs(amount)).padStart(wire + 1, "0");
  const whole = digits.slice(0, digits.length - wire).replace(/\B(?=(\d{3})+$)/g, ",");
  const fraction = digits.slice(digits.length - wire);
  const shown = /^0*$/.test(fraction.slice(displayExponent(currency))) ? fraction.slice(0, displayExponent(currency)) : fraction;
  return `${currency} ${sign}${whole}${shown ? `.${shown}` : ""}`;
}
