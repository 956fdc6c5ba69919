// paylink-sdk: typed client for the Paylink payment-link API, payment webhook signatures
// (docs/webhooks.md#the-hmacsignature and Standard Webhooks), and the sign/verify CLI.

export type * from "./after-sale-types.js";
export * from "./cli.js";
export * from "./client.js";
export type * from "./session-types.js";
export * from "./signature.js";
export * from "./standard-webhooks.js";
export type * from "./types.js";
