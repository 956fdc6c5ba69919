// Without PAYLINK_TRUST_PROXY every request behind a proxy has the proxy's address, so the
// per-address brakes (wrong API keys, sign-ins) hold back every client at once: 30 wrong keys from
// anyone lock out every valid key. Said once, loudly, at the first request that shows a proxy.
import type { FastifyInstance } from "fastify";

export function warnOfUntrustedProxy(app: FastifyInstance): void {
  let warned = false;
  app.addHook("onRequest", (request, _reply, done) => {
    if (!warned && request.headers["x-forwarded-for"] !== undefined) {
      warned = true;
      app.log.warn(
        "requests arrive with X-Forwarded-For but PAYLINK_TRUST_PROXY is not set: every client behind the proxy shares its address, " +
          "so one client's wrong API keys or sign-ins brake all of them. Set PAYLINK_TRUST_PROXY (docs/operations.md).",
      );
    }
    done();
  });
}
