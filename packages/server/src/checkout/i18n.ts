// The checkout page speaks Icelandic and English (SPEC §3). Every text a shopper can see is here,
// once per language; the English table fixes the keys and TypeScript makes Icelandic complete.
import type { ShopperField } from "../domain/links/types.ts";
import { displayExponent, wireExponent } from "../domain/money/currencies.ts";

export type Lang = "is" | "en";

export function isLang(value: unknown): value is Lang {
  return value === "is" || value === "en";
}

const en = {
  htmlTitlePay: "Pay",
  htmlTitleSave: "Save card",
  switchTo: "Íslenska",
  switchLang: "is" as Lang,
  orderSummary: "Order summary",
  itemHeader: "Item",
  amountHeader: "Amount",
  saveCardTitle: "Save your card",
  saveCardExplain: (merchant: string) =>
    `Your card will be saved securely so that ${merchant} can charge it later, as agreed with you. Nothing is charged now.`,
  payAlsoSaves: (merchant: string) => `Your card will also be saved so that ${merchant} can charge it later, as agreed with you.`,
  quantityTimes: (quantity: string, unitPrice: string) => `${quantity} × ${unitPrice}`,
  discount: "Discount",
  total: "Total",
  amountDueNow: "Charged now",
  yourDetails: "Your details",
  cardDetails: "Card details",
  optional: "optional",
  cardNumber: "Card number",
  cardExpiry: "Expiry date",
  cardExpiryHint: "MM/YY",
  cardCvc: "Security code",
  cardCvcHint: "3–4 digits",
  cardHolder: "Name on card",
  payButton: (amount: string) => `Pay ${amount}`,
  saveButton: "Save card",
  busyButton: "Processing…",
  secureNote: "Secure payment. Your card number is never stored.",
  poweredBy: "Payments by Paylink",
  fields: {
    Ssn: "Kennitala (Icelandic ID number)",
    FullName: "Full name",
    Address: "Address",
    PostCode: "Postcode",
    City: "Town or city",
    Country: "Country",
    Telephone: "Phone number",
    EmailAddress: "Email address",
    Comments: "Comments",
  } satisfies Record<ShopperField, string>,
  errorSummaryTitle: "Please correct the following:",
  errors: {
    required: (label: string) => `Enter your ${label.toLowerCase()}.`,
    too_long: (label: string) => `${label} is too long.`,
    invalid_email: () => "Enter an email address like name@example.com.",
    invalid_ssn: () => "Enter a kennitala of 10 digits, like 010130-2989.",
    invalid_telephone: () => "Enter a phone number of 7 to 15 digits, optionally starting with +.",
    card_number_required: () => "Enter your card number.",
    card_number_invalid: () => "This card number is not valid. Check the digits.",
    card_expiry_required: () => "Enter the expiry date as MM/YY.",
    card_expiry_invalid: () => "Enter the expiry date as MM/YY, for example 08/29.",
    card_expiry_past: () => "This card has expired. Use another card.",
    card_cvc_required: () => "Enter the security code.",
    card_cvc_invalid: () => "The security code is 3 or 4 digits.",
    card_holder_too_long: () => "The name on the card is too long.",
  },
  declinedTitle: "Payment declined",
  declinedSaveTitle: "Card not saved",
  declinedNotCharged: "You have not been charged. Check the details or try another card.",
  declineReasons: {
    Refused: "The card issuer refused the payment.",
    "Expired Card": "The card has expired.",
    "CVC Declined": "The security code was not accepted.",
  } as Record<string, string>,
  declineReasonLabel: "Reason",
  failedTitle: "The payment could not be completed",
  failedText: "We could not reach the card processor. You have not been charged. Please try again in a moment.",
  expiredFormTitle: "This form has expired",
  expiredFormText: "For your security, please check the details and submit again.",
  priceChangedTitle: "The price has changed",
  priceChangedText:
    "The seller changed this payment while the page was open. Nothing was charged. Check the new total below and pay again if you agree.",
  pendingTitle: "Your payment is being processed",
  pendingText: "Please do not pay again. The seller will confirm your payment.",
  unconfirmedTitle: "Your payment could not be confirmed",
  unconfirmedText:
    "The card processor did not answer in time. If anything was reserved on your card, it is being cancelled and you will not be charged. Please do not pay again right away: try again in 15 minutes, or contact the seller.",
  receiptTitle: "Payment successful",
  receiptSavedTitle: "Card saved",
  receiptThanks: (merchant: string) => `Thank you. ${merchant} has received your payment.`,
  receiptSavedThanks: (merchant: string) => `Your card has been saved for ${merchant}. Nothing was charged.`,
  receiptReference: "Reference",
  receiptAmount: "Amount",
  receiptCard: "Card",
  receiptDate: "Date",
  receiptKeep: "Keep the reference in case you need to contact the seller.",
  status: {
    Expired: { title: "This payment link has expired", text: "Contact the seller if you still want to pay." },
    Used: { title: "Sold out", text: "This payment link has reached its maximum number of payments." },
    Disabled: {
      title: "This payment link is no longer available",
      text: "The seller has turned this link off. Contact the seller if you still want to pay.",
    },
    Completed: { title: "This card has already been saved", text: "This link was for saving one card, and it has been used." },
    NotFound: { title: "Payment link not found", text: "Check that you have the whole address, or ask the seller for a new link." },
  },
  soldOutInFlight:
    "The last places are being paid for by other shoppers right now. If one of those payments does not go through, a place opens again: try again in a few minutes.",
  soldOutWhilePaying: "The last place was sold while you were paying. Your payment was cancelled, and you have not been charged.",
  errorPageTitle: "Something went wrong",
  errorPageText: "Please try again in a moment.",
  badRequestTitle: "This request could not be read",
  badRequestText: "Go back to the payment page and submit the form again.",
  tooManyTitle: "Too many attempts",
  tooManyText: (minutes: number) =>
    `Several payments from this device were declined, so this form is paused for your security. Try again in ${minutes} ${minutes === 1 ? "minute" : "minutes"}, or contact the seller.`,
};

export type Messages = typeof en;

const is: Messages = {
  htmlTitlePay: "Greiða",
  htmlTitleSave: "Vista kort",
  switchTo: "English",
  switchLang: "en",
  orderSummary: "Yfirlit pöntunar",
  itemHeader: "Vara",
  amountHeader: "Upphæð",
  saveCardTitle: "Vistaðu kortið þitt",
  saveCardExplain: (merchant) =>
    `Kortið þitt verður vistað á öruggan hátt svo ${merchant} geti skuldfært það síðar, eins og um var samið. Ekkert er skuldfært núna.`,
  payAlsoSaves: (merchant) => `Kortið verður einnig vistað svo ${merchant} geti skuldfært það síðar, eins og um var samið.`,
  quantityTimes: (quantity, unitPrice) => `${quantity} × ${unitPrice}`,
  discount: "Afsláttur",
  total: "Samtals",
  amountDueNow: "Skuldfært núna",
  yourDetails: "Upplýsingar um þig",
  cardDetails: "Kortaupplýsingar",
  optional: "valfrjálst",
  cardNumber: "Kortanúmer",
  cardExpiry: "Gildistími",
  cardExpiryHint: "MM/ÁÁ",
  cardCvc: "Öryggiskóði",
  cardCvcHint: "3–4 tölustafir",
  cardHolder: "Nafn korthafa",
  payButton: (amount) => `Greiða ${amount}`,
  saveButton: "Vista kort",
  busyButton: "Augnablik…",
  secureNote: "Örugg greiðsla. Kortanúmerið er aldrei geymt.",
  poweredBy: "Greiðslur um Paylink",
  fields: {
    Ssn: "Kennitala",
    FullName: "Fullt nafn",
    Address: "Heimilisfang",
    PostCode: "Póstnúmer",
    City: "Staður",
    Country: "Land",
    Telephone: "Símanúmer",
    EmailAddress: "Netfang",
    Comments: "Athugasemdir",
  },
  errorSummaryTitle: "Vinsamlegast lagaðu eftirfarandi:",
  errors: {
    required: (label) => `Fylltu út reitinn ${label.toLowerCase()}.`,
    too_long: (label) => `${label} er of langt.`,
    invalid_email: () => "Sláðu inn netfang, t.d. nafn@daemi.is.",
    invalid_ssn: () => "Sláðu inn kennitölu, 10 tölustafi, t.d. 010130-2989.",
    invalid_telephone: () => "Sláðu inn símanúmer, 7 til 15 tölustafi, má byrja á +.",
    card_number_required: () => "Sláðu inn kortanúmer.",
    card_number_invalid: () => "Kortanúmerið er ekki gilt. Athugaðu tölustafina.",
    card_expiry_required: () => "Sláðu inn gildistíma sem MM/ÁÁ.",
    card_expiry_invalid: () => "Sláðu inn gildistíma sem MM/ÁÁ, t.d. 08/29.",
    card_expiry_past: () => "Kortið er útrunnið. Notaðu annað kort.",
    card_cvc_required: () => "Sláðu inn öryggiskóða.",
    card_cvc_invalid: () => "Öryggiskóðinn er 3 eða 4 tölustafir.",
    card_holder_too_long: () => "Nafn korthafa er of langt.",
  },
  declinedTitle: "Greiðslu hafnað",
  declinedSaveTitle: "Kortið var ekki vistað",
  declinedNotCharged: "Ekkert var skuldfært. Athugaðu upplýsingarnar eða reyndu annað kort.",
  declineReasons: {
    Refused: "Útgefandi kortsins hafnaði greiðslunni.",
    "Expired Card": "Kortið er útrunnið.",
    "CVC Declined": "Öryggiskóðanum var hafnað.",
  },
  declineReasonLabel: "Ástæða",
  failedTitle: "Ekki tókst að ljúka greiðslunni",
  failedText: "Ekki náðist samband við færsluhirði. Ekkert var skuldfært. Reyndu aftur eftir augnablik.",
  expiredFormTitle: "Formið er útrunnið",
  expiredFormText: "Öryggisins vegna skaltu fara yfir upplýsingarnar og senda aftur.",
  priceChangedTitle: "Verðið hefur breyst",
  priceChangedText:
    "Seljandinn breytti greiðslunni á meðan síðan var opin. Ekkert var skuldfært. Skoðaðu nýju upphæðina hér fyrir neðan og greiddu aftur ef þú samþykkir hana.",
  pendingTitle: "Greiðslan er í vinnslu",
  pendingText: "Vinsamlegast greiddu ekki aftur. Seljandinn staðfestir greiðsluna.",
  unconfirmedTitle: "Greiðslan fékkst ekki staðfest",
  unconfirmedText:
    "Færsluhirðirinn svaraði ekki í tæka tíð. Ef einhver upphæð var tekin frá á kortinu þínu er verið að fella hana niður og þú verður ekki rukkuð/rukkaður. Vinsamlegast greiddu ekki strax aftur: reyndu aftur eftir 15 mínútur eða hafðu samband við seljandann.",
  receiptTitle: "Greiðsla tókst",
  receiptSavedTitle: "Kortið hefur verið vistað",
  receiptThanks: (merchant) => `Takk fyrir. ${merchant} hefur móttekið greiðsluna.`,
  receiptSavedThanks: (merchant) => `Kortið þitt hefur verið vistað fyrir ${merchant}. Ekkert var skuldfært.`,
  receiptReference: "Tilvísun",
  receiptAmount: "Upphæð",
  receiptCard: "Kort",
  receiptDate: "Dagsetning",
  receiptKeep: "Geymdu tilvísunina ef þú þarft að hafa samband við seljandann.",
  status: {
    Expired: { title: "Þessi greiðsluhlekkur er útrunninn", text: "Hafðu samband við seljandann ef þú vilt samt greiða." },
    Used: { title: "Uppselt", text: "Hámarksfjölda greiðslna um þennan hlekk er náð." },
    Disabled: {
      title: "Þessi greiðsluhlekkur er ekki lengur virkur",
      text: "Seljandinn hefur lokað hlekknum. Hafðu samband við seljandann ef þú vilt samt greiða.",
    },
    Completed: { title: "Kortið hefur þegar verið vistað", text: "Þessi hlekkur var til að vista eitt kort og hefur verið notaður." },
    NotFound: { title: "Greiðsluhlekkur fannst ekki", text: "Athugaðu hvort slóðin sé rétt og heil, eða biddu seljandann um nýjan hlekk." },
  },
  soldOutInFlight:
    "Aðrir kaupendur eru að greiða fyrir síðustu sætin núna. Ef einhver þeirra greiðslna gengur ekki í gegn losnar pláss: reyndu aftur eftir nokkrar mínútur.",
  soldOutWhilePaying: "Síðasta plássið seldist á meðan þú varst að greiða. Greiðslan þín var felld niður og ekkert var skuldfært.",
  errorPageTitle: "Eitthvað fór úrskeiðis",
  errorPageText: "Reyndu aftur eftir augnablik.",
  badRequestTitle: "Ekki tókst að lesa beiðnina",
  badRequestText: "Farðu aftur á greiðslusíðuna og sendu formið aftur.",
  tooManyTitle: "Of margar tilraunir",
  tooManyText: (minutes: number) =>
    `Nokkrum greiðslum úr þessu tæki var hafnað og því er formið læst í bili, til öryggis. Reyndu aftur eftir ${minutes} ${minutes % 10 === 1 && minutes % 100 !== 11 ? "mínútu" : "mínútur"}, eða hafðu samband við seljandann.`,
};

export const MESSAGES: Record<Lang, Messages> = { is, en };

export type FieldProblem = keyof Messages["errors"];

const LOCALES: Record<Lang, string> = { is: "is-IS", en: "en-GB" };

/**
 * A wire amount (minor units; ISK in hundredths) as the shopper reads it: 48900 ISK → "489 kr."
 * in Icelandic, "ISK 489" in English. Integer arithmetic, no floating point rounding surprises.
 */
export function formatMoney(amount: number, currency: string, lang: Lang): string {
  const shown = displayExponent(currency);
  const divisor = 10 ** wireExponent(currency);
  const whole = Math.trunc(amount / divisor);
  const fraction = amount - whole * divisor;
  const value = Number(`${whole}.${String(fraction).padStart(wireExponent(currency), "0")}`);
  return new Intl.NumberFormat(LOCALES[lang], {
    style: "currency",
    currency,
    currencyDisplay: lang === "is" && currency === "ISK" ? "symbol" : "code",
    minimumFractionDigits: shown,
    maximumFractionDigits: shown,
  })
    .format(value)
    .replace(/\u00a0/g, " ");
}

export function formatNumber(value: number, lang: Lang): string {
  return new Intl.NumberFormat(LOCALES[lang]).format(value);
}

export function formatDateTime(date: Date, lang: Lang): string {
  return new Intl.DateTimeFormat(LOCALES[lang], { dateStyle: "long", timeStyle: "short", timeZone: "Atlantic/Reykjavik" }).format(date);
}
