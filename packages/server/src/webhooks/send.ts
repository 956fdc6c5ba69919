// One delivery attempt over HTTP (docs/webhooks.md): POST, 10 s for the whole exchange of which at
// most 3 s to connect, redirects not followed, only 2xx counts, the first 1 KB of the answer kept for
// the delivery log. A receiver that cannot be reached fails in 3 s, not 10: it holds a sending slot
// for less, and its circuit breaker (breaker.ts) learns sooner.
//
// node:http/https rather than global fetch: fetch (undici) on Node 20 offers no way to choose the
// address a connection goes to without the undici package, and the SSRF guard needs exactly that
// — the socket connects to the address that was vetted (via `lookup`), while the Host header and
// the TLS server name stay the URL's hostname, so certificates are verified as usual.
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { OutboundTargetRefused, type Resolver, type VettedAddress, vetOutboundHost } from "../net/outbound-guard.ts";
import { connectionPool } from "./connections.ts";
import type { OutgoingWebhook } from "./message.ts";
import { parseRetryAfter } from "./schedule.ts";

export const RESPONSE_EXCERPT_BYTES = 1024;
export const DEFAULT_SEND_TIMEOUT_MS = 10_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 3_000;

export interface SendOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  /** Time to establish the TCP connection, within `timeoutMs` (default 3 s). */
  connectTimeoutMs?: number;
  /** Aborts the attempt (shutdown); the result then has `aborted: true` and is not an outcome. */
  signal?: AbortSignal;
  resolver?: Resolver;
  /** Replaces the SSRF check (tests prove with it that the socket goes to the vetted address). */
  vet?: (hostname: string) => Promise<VettedAddress>;
}

export interface SendResult {
  /** A 2xx answer. */
  delivered: boolean;
  statusCode: number | null;
  latencyMs: number;
  /** First 1 KB of the answer's body. */
  responseExcerpt: string | null;
  /** Why no answer was received (connection refused, timeout, refused target…). */
  error: string | null;
  /** No answer came: a time-out or a connection that failed (not a refused target). Counts for the breaker. */
  unreachable?: boolean;
  /** Retry-After of a 429 or 503 answer, in ms. */
  retryAfterMs?: number;
  /** Interrupted by `options.signal`: says nothing about the receiver. */
  aborted?: boolean;
}

export async function sendWebhook(url: string, request: OutgoingWebhook, options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failure = (error: string, extra: Partial<SendResult> = {}): SendResult => ({
    delivered: false,
    statusCode: null,
    latencyMs: elapsed(),
    responseExcerpt: null,
    error,
    ...extra,
  });

  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return failure(`the endpoint URL is not valid: ${url}`);
  }
  if (target.protocol !== "https:" && target.protocol !== "http:") return failure(`unsupported URL scheme ${target.protocol}`);

  if (options.signal?.aborted) return failure("aborted: the worker is shutting down", { aborted: true });
  const timeoutMs = options.timeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
  // A plain timer and controller, not AbortSignal.timeout + AbortSignal.any: on Node 20 a timeout
  // signal referenced only through AbortSignal.any can be garbage-collected and never fire.
  // The timeout covers everything, the DNS lookup of the SSRF guard included.
  const controller = new AbortController();
  const connectTimeoutMs = Math.min(options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS, timeoutMs);
  let abortedBy: "timeout" | "connect-timeout" | "shutdown" | undefined;
  const timer = setTimeout(() => {
    abortedBy ??= "timeout";
    controller.abort();
  }, timeoutMs);
  const onShutdown = () => {
    abortedBy ??= "shutdown";
    controller.abort();
  };
  options.signal?.addEventListener("abort", onShutdown, { once: true });
  const abortFailure = () =>
    abortedBy === "shutdown"
      ? failure("aborted: the worker is shutting down", { aborted: true })
      : abortedBy === "connect-timeout"
        ? failure(`could not connect within ${connectTimeoutMs / 1000} s`, { unreachable: true })
        : failure(`timed out after ${timeoutMs / 1000} s`, { unreachable: true });
  const connectTimedOut = () => {
    abortedBy ??= "connect-timeout";
    controller.abort();
  };

  try {
    let vetted: VettedAddress | undefined;
    if (!options.allowPrivate) {
      const vet = options.vet ?? ((hostname: string) => vetOutboundHost(hostname, options.resolver));
      try {
        vetted = await Promise.race([
          vet(target.hostname),
          new Promise<never>((_resolve, reject) =>
            controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true }),
          ),
        ]);
      } catch (error) {
        if (abortedBy) return abortFailure();
        if (error instanceof OutboundTargetRefused) return failure(`refused: ${error.message}`);
        throw error;
      }
    }
    return await exchange(target, request, {
      signal: controller.signal,
      vetted,
      failure,
      elapsed,
      abortOutcome: () => (abortedBy ? abortFailure() : undefined),
      connectTimeoutMs,
      connectTimedOut,
    });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onShutdown);
  }
}

interface ExchangeContext {
  signal: AbortSignal;
  vetted: VettedAddress | undefined;
  failure: (error: string, extra?: Partial<SendResult>) => SendResult;
  elapsed: () => number;
  abortOutcome: () => SendResult | undefined;
  connectTimeoutMs: number;
  connectTimedOut: () => void;
}

/** The HTTP exchange itself: resolves with the answer's status and excerpt, or the failure. */
function exchange(target: URL, request: OutgoingWebhook, context: ExchangeContext): Promise<SendResult> {
  const { signal, vetted, failure, elapsed, abortOutcome } = context;
  const body = Buffer.from(request.body, "utf8");
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const settle = (result: SendResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const transport = target.protocol === "https:" ? https : http;
    const outgoing = transport.request(
      target,
      {
        method: "POST",
        headers: { ...request.headers, "content-length": String(body.length) },
        // Kept-alive sockets, pooled per vetted address (connections.ts): a pooled socket never
        // carries a request to an address other than the one vetted for it.
        agent: connectionPool(target, vetted),
        signal,
        ...(vetted ? { lookup: pinnedLookup(vetted) } : {}),
      },
      (response) => {
        const statusCode = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        // `whole`: the answer ended, so its socket may go back to the pool; otherwise it is closed.
        const finish = (whole: boolean) => {
          if (settled) return;
          const retryAfterMs =
            statusCode === 429 || statusCode === 503 ? parseRetryAfter(header(response.headers["retry-after"])) : undefined;
          settle({
            delivered: statusCode >= 200 && statusCode < 300,
            statusCode,
            latencyMs: elapsed(),
            responseExcerpt: excerpt(Buffer.concat(chunks)),
            error: null,
            ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
          });
          // The rest of a longer answer is of no interest; do not wait for (or download) it.
          if (!whole) response.destroy();
        };
        response.on("data", (chunk: Buffer) => {
          if (size < RESPONSE_EXCERPT_BYTES) chunks.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - size));
          size += chunk.length;
          if (size > RESPONSE_EXCERPT_BYTES) finish(false);
        });
        response.on("end", () => finish(true));
        // An answer whose body stalls or breaks still has its status: that is the outcome.
        response.on("error", () => finish(false));
        response.on("close", () => finish(false));
      },
    );
    // The connect time-out starts when the socket does (after the SSRF guard's lookup) and ends at
    // the TCP handshake; a receiver that accepts and then says nothing meets the overall time-out.
    outgoing.once("socket", (socket) => {
      if (!socket.connecting) return;
      const connectTimer = setTimeout(context.connectTimedOut, context.connectTimeoutMs);
      const clear = () => clearTimeout(connectTimer);
      socket.once("connect", clear);
      socket.once("close", clear);
    });
    outgoing.on("error", (error: NodeJS.ErrnoException) => {
      settle(abortOutcome() ?? failure(describeNetworkError(error), { unreachable: true }));
    });
    outgoing.end(body);
  });
}

/** A DNS lookup that always answers the vetted address: the socket cannot go anywhere else. */
export function pinnedLookup(vetted: VettedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, [{ address: vetted.address, family: vetted.family }]);
    else callback(null, vetted.address, vetted.family);
  }) as unknown as LookupFunction;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Text for the log; PostgreSQL text cannot hold NUL characters. */
function excerpt(bytes: Buffer): string | null {
  if (bytes.length === 0) return null;
  return bytes.subarray(0, RESPONSE_EXCERPT_BYTES).toString("utf8").replaceAll("\u0000", "");
}

function describeNetworkError(error: NodeJS.ErrnoException): string {
  const known: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ECONNRESET: "connection reset by the receiver",
    ENOTFOUND: "host not found",
    EAI_AGAIN: "DNS lookup failed temporarily",
    ETIMEDOUT: "connection timed out",
    EHOSTUNREACH: "host unreachable",
    ENETUNREACH: "network unreachable",
    CERT_HAS_EXPIRED: "the receiver's TLS certificate has expired",
    DEPTH_ZERO_SELF_SIGNED_CERT: "the receiver's TLS certificate is self-signed",
    ERR_TLS_CERT_ALTNAME_INVALID: "the receiver's TLS certificate does not match its hostname",
  };
  const code = error.code ?? error.name;
  return `${known[code] ?? error.message} (${code})`.slice(0, 500);
}
