// The words of the notifications page (/portal/account/notifications), in Icelandic and English.
// Kept beside the page rather than in i18n/: the account pages grow separately.
import type { Lang } from "../web/i18n.ts";

export const NOTIFICATION_MESSAGES: Record<
  Lang,
  {
    title: string;
    intro: string;
    payments: string;
    paymentsHint: string;
    language: string;
    is: string;
    en: string;
    save: string;
    saved: string;
    badLanguage: string;
    alwaysSent: string;
  }
> = {
  en: {
    title: "E-mail notifications",
    intro: "Choose which e-mail Paylink sends you, and in which language.",
    payments: "E-mail me each time a payment is approved (\u201cyou got paid\u201d)",
    paymentsHint: "One e-mail per payment, with the amount, the card and a link to the payment.",
    language: "Language of my e-mail",
    is: "Íslenska",
    en: "English",
    save: "Save",
    saved: "Settings saved.",
    badLanguage: "Choose Icelandic or English.",
    alwaysSent: "Owners, admins and developers always get e-mail when a webhook endpoint has been failing for an hour.",
  },
  is: {
    title: "Tilkynningar í tölvupósti",
    intro: "Veldu hvaða póst Paylink sendir þér og á hvaða tungumáli.",
    payments: "Sendu mér póst í hvert sinn sem greiðsla er samþykkt (\u201eþú fékkst greitt\u201c)",
    paymentsHint: "Einn póstur á greiðslu, með upphæð, korti og hlekk á greiðsluna.",
    language: "Tungumál póstsins",
    is: "Íslenska",
    en: "English",
    save: "Vista",
    saved: "Stillingar vistaðar.",
    badLanguage: "Veldu íslensku eða ensku.",
    alwaysSent: "Eigendur, stjórnendur og forritarar fá alltaf póst þegar vefkrókur hefur bilað í klukkustund.",
  },
};
