// The portal's texts for setting a terminal's processor in Icelandic.
import type { enTerminalProcessor } from "./en-terminal-processor.ts";

export const isTerminalProcessor: typeof enTerminalProcessor = {
  terminalProcessor: {
    title: (terminal: string) => `Færsluhirðir posans ${terminal}`,
    change: "Breyta færsluhirði",
    changeLabel: (terminal: string) => `Breyta færsluhirði: ${terminal}`,
    ownerNote:
      "Hver posi tekur við greiðslum hjá færsluhirðinum sem hér er sýndur. Sem eigandi getur þú breytt honum; rekstraraðili Paylink getur það líka í kerfisstjórn (admin API).",
    changed: "Færsluhirði posans var breytt. Greiðslur sem hefjast héðan í frá fara um hann.",
    back: "Forritarar",
    current: "Núna",
    stepType: "1. Færsluhirðir",
    stepSettings: "2. Stillingar",
    chooseType: "Hvaða færsluhirðir tekur við greiðslum þessa posa?",
    continue: "Áfram",
    otherType: "Velja annan færsluhirði",
    typeProblem: "Veldu einn af færsluhirðunum.",
    environment: "Umhverfi",
    apiKey: "API-lykill",
    gatewayTerminal: "Posi hjá greiðslugáttinni (12 stafir)",
    hmacKey: "HMAC-lykill (sextándakerfi)",
    themeKey: "Útlitslykill hjá greiðslugáttinni (valfrjálst)",
    merchantAccount: "Söluaðilareikningur hjá Adyen",
    liveEndpointUrlPrefix: "Forskeyti raunslóða",
    liveEndpointUrlPrefixHint: "Nauðsynlegt í raunumhverfi: Customer Area hjá Adyen, Developers → API URLs.",
    secretKey: "Leynilykill (sk_test_… eða sk_live_…)",
    webhookSecret: "Undirritunarleyndarmál vefkróka (whsec_…)",
    keepSecret: "Skildu eftir autt til að halda þeim sem er vistaður.",
    secretNeverShown: "Vistað dulkóðað og aldrei sýnt aftur.",
    sandboxConfirm:
      "Posinn fer aftur í sandkassann: greiðslur hans eru aðeins prófunargreiðslur og ekkert fé er tekið. Auðkennum sem vistuð eru fyrir hann er eytt.",
    save: "Vista færsluhirði",
    saveSandbox: "Nota sandkassann",
    cancel: "Hætta við",
    webhookAfter: "Eftir vistun skaltu skrá vefkróksslóð posans (á síðunni Forritarar) hjá færsluhirðinum.",
  },
};
