// Every e-mail's words, in Icelandic and English; the templates put them together.
import type { Lang } from "../web/i18n.ts";

export interface MailTexts {
  receiptSubject(merchant: string): string;
  receiptTitle: string;
  receiptIntro(merchant: string): string;
  receiptFooter(merchant: string): string;
  itemsHeading: string;
  total: string;
  card: string;
  paidAt: string;
  reference: string;
  orderReference: string;
  processorReference: string;
  authCode: string;
  /** The receipt of an authorisation a shop captures later (manual capture): nothing is charged yet. */
  authorisation: {
    subject(merchant: string): string;
    title: string;
    intro(merchant: string, amount: string): string;
    footer(merchant: string): string;
    authorisedAt: string;
  };
  refundSubject(merchant: string): string;
  refundTitle: string;
  refundIntro(merchant: string, amount: string): string;
  refunded: string;
  originalAmount: string;
  refundFooter(merchant: string): string;
  paidSubject(amount: string): string;
  paidTitle: string;
  paidIntro(amount: string): string;
  paidFooter: string;
  shopperEmail: string;
  openInPortal: string;
  failingSubject(url: string): string;
  failingTitle: string;
  failingIntro(url: string, since: string): string;
  failingWhat: string;
  failingSince: string;
  failingWaiting: string;
  failingFooter: string;
  resetSubject: string;
  resetTitle: string;
  resetIntro(email: string): string;
  resetButton: string;
  resetValid(hours: number): string;
  resetIgnore: string;
  inviteSubject(merchant: string): string;
  inviteTitle(merchant: string): string;
  inviteIntro(inviter: string, merchant: string): string;
  inviteButton: string;
  inviteValid(hours: number): string;
  inviteIgnore: string;
  accountFooter: string;
}

const en: MailTexts = {
  receiptSubject: (merchant) => `Your receipt from ${merchant}`,
  receiptTitle: "Thank you for your payment",
  receiptIntro: (merchant) => `${merchant} has received your payment. Keep this e-mail as your receipt.`,
  receiptFooter: (merchant) => `You get this e-mail because you paid ${merchant} through Paylink and gave this address.`,
  itemsHeading: "Items",
  total: "Total",
  card: "Card",
  paidAt: "Paid",
  reference: "Payment reference",
  orderReference: "Order",
  processorReference: "Processor reference",
  authCode: "Authorisation code",
  authorisation: {
    subject: (merchant) => `Your order with ${merchant}: amount reserved on your card`,
    title: "Your order is confirmed",
    intro: (merchant, amount) =>
      `${merchant} has reserved ${amount} on your card. Nothing has been charged yet: the amount is taken when ${merchant} completes your order, and a reservation that is not used is released.`,
    footer: (merchant) => `You get this e-mail because you ordered from ${merchant} through Paylink and gave this address.`,
    authorisedAt: "Reserved",
  },
  refundSubject: (merchant) => `Refund from ${merchant}`,
  refundTitle: "You have been refunded",
  refundIntro: (merchant, amount) => `${merchant} has refunded ${amount} to your card. It may take a few days to show on your statement.`,
  refunded: "Refunded",
  originalAmount: "Original payment",
  refundFooter: (merchant) => `You get this e-mail because you paid ${merchant} through Paylink and gave this address.`,
  paidSubject: (amount) => `You got paid: ${amount}`,
  paidTitle: "You got paid",
  paidIntro: (amount) => `A payment of ${amount} was approved.`,
  paidFooter: "You get this e-mail because you asked for one per payment. Turn it off in the portal under Account → Notifications.",
  shopperEmail: "Shopper's e-mail",
  openInPortal: "Open in the portal",
  failingSubject: (url) => `Webhook endpoint failing: ${url}`,
  failingTitle: "A webhook endpoint is failing",
  failingIntro: (url, since) =>
    `Deliveries to ${url} have failed since ${since}. Paylink keeps retrying them, but your system is not hearing about payments.`,
  failingWhat: "Endpoint",
  failingSince: "Failing since",
  failingWaiting: "Deliveries waiting",
  failingFooter:
    "You get this e-mail once per failing spell, as a user of this merchant account. You will not get another until the endpoint has recovered and fails again.",
  resetSubject: "Reset your Paylink password",
  resetTitle: "Reset your password",
  resetIntro: (email) => `Someone asked to reset the password of ${email} in the Paylink portal. Choose a new password with this link:`,
  resetButton: "Choose a new password",
  resetValid: (hours) => `The link works once, within ${hours} hour${hours === 1 ? "" : "s"}.`,
  resetIgnore: "If you did not ask for this, ignore this e-mail: your password stays as it is.",
  inviteSubject: (merchant) => `You are invited to ${merchant} on Paylink`,
  inviteTitle: (merchant) => `Join ${merchant} on Paylink`,
  inviteIntro: (inviter, merchant) =>
    `${inviter} invites you to the Paylink portal of ${merchant}. Accept with this link and choose your password:`,
  inviteButton: "Accept the invitation",
  inviteValid: (hours) => `The link works once, within ${hours} hours.`,
  inviteIgnore: "If you do not know what this is about, ignore this e-mail.",
  accountFooter: "Paylink sent this e-mail about your account in its portal.",
};

const is: MailTexts = {
  receiptSubject: (merchant) => `Kvittun frá ${merchant}`,
  receiptTitle: "Takk fyrir greiðsluna",
  receiptIntro: (merchant) => `${merchant} hefur tekið við greiðslunni þinni. Geymdu þennan póst sem kvittun.`,
  receiptFooter: (merchant) => `Þú færð þennan póst af því að þú greiddir ${merchant} með Paylink og gafst upp þetta netfang.`,
  itemsHeading: "Vörur",
  total: "Samtals",
  card: "Kort",
  paidAt: "Greitt",
  reference: "Tilvísun greiðslu",
  orderReference: "Pöntun",
  processorReference: "Tilvísun færsluhirðis",
  authCode: "Heimildarnúmer",
  authorisation: {
    subject: (merchant) => `Pöntun hjá ${merchant}: upphæð frátekin á kortinu þínu`,
    title: "Pöntunin þín er staðfest",
    intro: (merchant, amount) =>
      `${merchant} hefur tekið frá ${amount} á kortinu þínu. Ekkert hefur verið skuldfært enn: upphæðin er skuldfærð þegar ${merchant} afgreiðir pöntunina, og frátekt sem ekki er notuð fellur niður.`,
    footer: (merchant) => `Þú færð þennan póst af því að þú pantaðir hjá ${merchant} með Paylink og gafst upp þetta netfang.`,
    authorisedAt: "Tekið frá",
  },
  refundSubject: (merchant) => `Endurgreiðsla frá ${merchant}`,
  refundTitle: "Þú hefur fengið endurgreitt",
  refundIntro: (merchant, amount) =>
    `${merchant} hefur endurgreitt ${amount} á kortið þitt. Það getur tekið nokkra daga að birtast á yfirlitinu.`,
  refunded: "Endurgreitt",
  originalAmount: "Upphafleg greiðsla",
  refundFooter: (merchant) => `Þú færð þennan póst af því að þú greiddir ${merchant} með Paylink og gafst upp þetta netfang.`,
  paidSubject: (amount) => `Þú fékkst greitt: ${amount}`,
  paidTitle: "Þú fékkst greitt",
  paidIntro: (amount) => `Greiðsla að upphæð ${amount} var samþykkt.`,
  paidFooter:
    "Þú færð þennan póst af því að þú baðst um póst fyrir hverja greiðslu. Slökktu á því í gáttinni undir Aðgangur → Tilkynningar.",
  shopperEmail: "Netfang greiðanda",
  openInPortal: "Opna í gáttinni",
  failingSubject: (url) => `Vefkrókur bilar: ${url}`,
  failingTitle: "Vefkrókur tekur ekki við sendingum",
  failingIntro: (url, since) =>
    `Sendingar á ${url} hafa mistekist frá ${since}. Paylink reynir áfram, en kerfið þitt fréttir ekki af greiðslum á meðan.`,
  failingWhat: "Vefkrókur",
  failingSince: "Bilaður frá",
  failingWaiting: "Sendingar sem bíða",
  failingFooter:
    "Þú færð þennan póst einu sinni fyrir hverja bilun, sem notandi þessa söluaðila. Annar kemur ekki fyrr en krókurinn hefur náð sér og bilar aftur.",
  resetSubject: "Nýtt lykilorð í Paylink",
  resetTitle: "Veldu nýtt lykilorð",
  resetIntro: (email) => `Beðið var um nýtt lykilorð fyrir ${email} í gátt Paylink. Veldu nýtt lykilorð með þessum hlekk:`,
  resetButton: "Velja nýtt lykilorð",
  resetValid: (hours) => `Hlekkurinn virkar einu sinni, innan ${hours} klst.`,
  resetIgnore: "Ef þú baðst ekki um þetta skaltu hunsa póstinn: lykilorðið þitt helst óbreytt.",
  inviteSubject: (merchant) => `Þér er boðið að ${merchant} í Paylink`,
  inviteTitle: (merchant) => `Vertu með hjá ${merchant} í Paylink`,
  inviteIntro: (inviter, merchant) =>
    `${inviter} býður þér aðgang að gátt ${merchant} í Paylink. Þiggðu boðið með þessum hlekk og veldu lykilorð:`,
  inviteButton: "Þiggja boðið",
  inviteValid: (hours) => `Hlekkurinn virkar einu sinni, innan ${hours} klst.`,
  inviteIgnore: "Ef þú kannast ekki við þetta skaltu hunsa póstinn.",
  accountFooter: "Paylink sendi þennan póst um aðganginn þinn að gáttinni.",
};

export const MAIL_TEXTS: Record<Lang, MailTexts> = { is, en };
