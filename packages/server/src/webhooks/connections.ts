// Kept-alive connections to webhook receivers (docs/decisions.md#outbound-address-guard). A connection per attempt cost a TCP (and,
// for https, a TLS) handshake per delivery; a backlog to one receiver now reuses a few sockets.
//
// One pool per scheme, host, port and *vetted address*: every socket of a pool was opened to the
// address the SSRF guard approved for that pool, so a pooled socket can never carry a request to an
// address other than the one vetted for it (a receiver whose name now resolves elsewhere gets a new
// pool). Without the guard (allowPrivate) the address part is empty and DNS decides, as before.
import http from "node:http";
import https from "node:https";
import type { VettedAddress } from "../net/outbound-guard.ts";

/**
 * A free socket is closed after this long idle: below the 5 s keep-alive time-out of Node's HTTP
 * server and of common proxies, so Paylink lets go of a socket before the receiver does and does
 * not send on a connection the other end is closing.
 */
export const IDLE_SOCKET_MS = 4_000;
/** Pools kept; the least recently used one is dropped beyond it (its sockets close when idle). */
const MAX_POOLS = 256;

const pools = new Map<string, http.Agent>();

export function connectionPool(target: URL, vetted: VettedAddress | undefined): http.Agent {
  const key = `${target.protocol}//${target.host}|${vetted?.address ?? ""}`;
  const known = pools.get(key);
  if (known) {
    // Map order is insertion order: re-inserting keeps the most recently used pools last.
    pools.delete(key);
    pools.set(key, known);
    return known;
  }
  // `timeout` applies to sockets while they wait in the pool; attempts keep their own deadlines
  // (send.ts). LIFO reuses the warmest socket and lets the others idle out.
  const options = { keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: "lifo" as const };
  const pool = target.protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
  pools.set(key, pool);
  if (pools.size > MAX_POOLS) {
    // Not destroyed: an attempt may still be using one of its sockets. Idle sockets close by timeout.
    const oldest = pools.keys().next().value;
    if (oldest !== undefined) pools.delete(oldest);
  }
  return pool;
}
