// The portal's texts for setting a terminal's processor (owners, from the Developers page) in
// English. This table fixes the keys of is-terminal-processor.ts.

export const enTerminalProcessor = {
  terminalProcessor: {
    title: (terminal: string) => `Processor of ${terminal}`,
    change: "Change processor",
    changeLabel: (terminal: string) => `Change processor: ${terminal}`,
    ownerNote:
      "Each terminal takes its money through the processor shown here. As an owner you can change it; the operator can too, through the admin API.",
    changed: "The terminal's processor was changed. Payments started from now on use it.",
    back: "Developers",
    current: "Now",
    stepType: "1. Processor",
    stepSettings: "2. Settings",
    chooseType: "Which processor takes this terminal's money?",
    continue: "Continue",
    otherType: "Choose another processor",
    typeProblem: "Choose one of the processors.",
    environment: "Environment",
    apiKey: "API key",
    gatewayTerminal: "Terminal at the gateway (12 characters)",
    hmacKey: "HMAC key (hexadecimal)",
    themeKey: "Theme key at the gateway (optional)",
    merchantAccount: "Adyen merchant account",
    liveEndpointUrlPrefix: "Live endpoint URL prefix",
    liveEndpointUrlPrefixHint: "Required for the live environment: Adyen's Customer Area, Developers → API URLs.",
    secretKey: "Secret key (sk_test_… or sk_live_…)",
    webhookSecret: "Webhook signing secret (whsec_…)",
    keepSecret: "Leave empty to keep the one saved.",
    secretNeverShown: "Saved encrypted and never shown again.",
    sandboxConfirm:
      "The terminal goes back to the sandbox: its payments are test payments only, and no money is taken. The credentials saved for it are deleted.",
    save: "Save processor",
    saveSandbox: "Use the sandbox",
    cancel: "Cancel",
    webhookAfter: "After saving, register the terminal's webhook address (on the Developers page) at the processor.",
  },
};
