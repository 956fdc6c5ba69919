// Icelandic words for the errors of the one catalogue (domain/errors.ts) when a portal form shows
// one: the services judge, these only say it in Icelandic. `byRule` ("code:field") is the text for
// a rule of one field; `byCode` is every code's text, for the rest. English pages show the API's
// own message instead (it names the values), so there is no English copy of this table.
import type { ErrorCode } from "../../domain/errors.ts";

export interface ApiErrorTexts {
  /** Keyed by catalogue code and the form field the error is shown beside (see errorText). */
  byRule: Record<string, string>;
  byCode: Record<ErrorCode, string>;
}

export const isApiErrors: ApiErrorTexts = {
  byRule: {
    "000:item-name": "Sláðu inn heiti vörunnar.",
    "000:shopper": "Sláðu inn gildið sem á að fylla út fyrirfram.",
    "2002:amount": "Upphæðin verður að vera hærri en 0.",
    "2002:item-quantity": "Magnið verður að vera að minnsta kosti 1.",
    "2002:item-unitPrice": "Verðið verður að vera hærra en 0.",
    "2002:exactSalesCount": "Hámarksfjöldi sölu má ekki vera lægri en 1 eða en sölurnar sem þegar eru orðnar.",
    "2002:refund": "Upphæðin verður að vera hærri en 0.",
    "2005:expiresAt": "Tíminn er liðinn; veldu tíma í framtíðinni.",
    "2008:currency": "Paylink styður ekki þennan gjaldmiðil; notaðu ISO 4217-kóða, t.d. ISK eða EUR.",
    "2008:returnUrl": "Slóðin verður að vera heil slóð sem byrjar á https://.",
    "2008:expiresAt": "Þetta er ekki gild dagsetning og tími.",
    "2008:logoUrl": "Merkið verður að vera https://-slóð eða data:image-slóð með PNG-, JPEG-, GIF- eða WebP-mynd.",
    "2008:url": "Slóðin verður að vera https://-slóð á netþjóni sem er opinn á netinu.",
    "2008:apiKey": "Lykillinn má aðeins innihalda prentanlega ASCII-stafi og stök bil, t.d. „Bearer abc“.",
    "2008:refund": "Endurgreiðslan verður að vera í gjaldmiðli greiðslunnar.",
    "2009:description": "Lýsingin er of löng.",
    "2009:apiKey": "Lykillinn er of langur: mest 512 stafir.",
    "2009:logoUrl": "Merkið er of stórt: mest 64 KB.",
    "2009:item-quantity": "Magnið er of hátt.",
    "2010:themeKey": "Þetta útlit er ekki eitt af útlitum þínum.",
    "2011:currency": "Posinn tekur ekki við þessum gjaldmiðli.",
    "2013:exactSalesCount": "Hlekkur sem vistar kort er einnota: hámarksfjöldi sölu er alltaf 1.",
    "2013:shopper": "Sami reitur er tvisvar á listanum.",
    "2016:terminalIdentifier": "Þessi posi er ekki einn af posum þínum.",
    "2017:currency": "Gjaldmiðilskóði er þrír stafir, t.d. ISK.",
    "2019:refund": "Upphæðin er hærri en það sem eftir er að endurgreiða af greiðslunni.",
    "2025:item-amount": "Línuupphæðin má ekki vera hærri en magn × verð.",
    "2026:amount": "Upphæð í krónum verður að vera heil tala, án aura.",
    "2026:item-unitPrice": "Verð í krónum verður að vera heil tala, án aura.",
    "2026:item-amount": "Upphæð í krónum verður að vera heil tala, án aura.",
    "3003:amount": "Upphæð, gjaldmiðli og vörum má ekki breyta eftir sölu, né á meðan greiðsla er í vinnslu.",
    "3003:refund": "Aðeins er hægt að endurgreiða samþykkta greiðslu sem tók við fé.",
    "3003:reverse": "Ekkert er eftir til að bakfæra: greiðslan er endurgreidd eða endurgreiðslur eru í vinnslu.",
  },
  byCode: {
    "1000": "Ekki tókst að lesa beiðnina.",
    "1005": "Gildið er af rangri gerð.",
    "1006": "Óþekktur reitur.",
    "000": "Þennan reit þarf að fylla út.",
    "2002": "Gildið er of lágt.",
    "2003": "Þetta gildi er ekki eitt af þeim sem leyfð eru.",
    "2005": "Tíminn er liðinn; veldu tíma í framtíðinni.",
    "2007": "Upphæðir varanna leggjast ekki saman í upphæð hlekksins.",
    "2008": "Þetta gildi er ekki stutt.",
    "2009": "Gildið er of langt eða of hátt.",
    "2010": "Þetta útlit er ekki eitt af útlitum þínum.",
    "2011": "Posinn tekur ekki við þessum gjaldmiðli.",
    "2012": "Textinn er of stuttur.",
    "2013": "Þessi gildi fara ekki saman, eða þessu má ekki breyta.",
    "2014": "Fannst ekki.",
    "2016": "Þessi posi er ekki einn af posum þínum.",
    "2017": "Gildið er ekki af réttri lengd.",
    "2019": "Upphæðin er of há.",
    "2023": "Hlekkur sem vistar kort tekur enga upphæð.",
    "2025": "Línuupphæðin má ekki vera hærri en magn × verð.",
    "2026": "Upphæð í krónum verður að vera heil tala, án aura.",
    "3001": "Aðgangi hafnað.",
    "3002": "Of margar beiðnir; reyndu aftur eftir smástund.",
    "3003": "Staða hlutarins leyfir ekki þessa breytingu.",
    "3004": "Þessi beiðni var þegar send með öðru efni.",
    "3005": "Beiðnin er of stór.",
    "3006": "Beiðnin er á sniði sem ekki er stutt.",
    "3007": "Sama beiðni er enn í vinnslu; reyndu aftur eftir smástund.",
    "5000": "Eitthvað fór úrskeiðis; engu var breytt.",
    "5002": "Færsluhirðirinn svaraði ekki; reyndu aftur síðar.",
    "5003": "Gagnagrunnurinn svarar ekki í augnablikinu; reyndu aftur eftir smástund.",
    "5004": "Þjónninn er að slökkva á sér; reyndu aftur eftir smástund.",
  },
};
