// paylink-sdk: typed client for the Paylink payment-link API, and payment webhook signatures.
export * from "./signature.js";
export type * from "./types.js";
