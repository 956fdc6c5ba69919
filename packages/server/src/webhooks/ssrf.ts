// The SSRF guard of SPEC §4. A webhook URL is chosen by a merchant, and the server sends requests
// to it from inside the operator's network; without a guard a merchant could make Paylink probe
// or call internal services (cloud metadata at 169.254.169.254, admin ports on localhost…).
//
// The check runs at send time on the addresses the hostname resolves to *then* (a URL that was
// harmless when saved may later resolve elsewhere), and the connection is made to the vetted
// address itself (send.ts passes it as the socket's lookup result), so a DNS answer that changes
// between the check and the connect (DNS rebinding) cannot slip a private address in.
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/** Addresses that are not on the public internet (IANA special-purpose registries). */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata lives here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast (deprecated)
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and 255.255.255.255 broadcast
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["64:ff9b:1::", 48], // local-use IPv4/IPv6 translation
  ["100::", 64], // discard-only
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv6");
}

/**
 * IPv4-mapped IPv6 (::ffff:a.b.c.d) is refused outright rather than trusting what it maps to. A
 * list of its own: BlockList matches IPv4 addresses against a mapped IPv6 rule, so in BLOCKED this
 * rule would block every IPv4 address.
 */
const IPV4_MAPPED = new BlockList();
IPV4_MAPPED.addSubnet("::ffff:0:0", 96, "ipv6");

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6 && IPV4_MAPPED.check(address, "ipv6")) return false;
  return !BLOCKED.check(address, family === 4 ? "ipv4" : "ipv6");
}

export interface VettedAddress {
  address: string;
  family: 4 | 6;
}

/** The target is not allowed: a private, loopback, link-local… address, or a hostname that does not resolve. */
export class WebhookTargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookTargetRefused";
  }
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;
const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * Resolves a URL's hostname and returns the address to connect to. Every address the name
 * resolves to must be public: a name with one private address among public ones is refused, so
 * that which address the check saw and which the socket picks can never differ in kind.
 */
export async function vetWebhookHost(hostname: string, resolver: Resolver = systemResolver): Promise<VettedAddress> {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  const literal = isIP(bare);
  let addresses: { address: string; family: number }[];
  if (literal !== 0) addresses = [{ address: bare, family: literal }];
  else {
    try {
      addresses = await resolver(bare);
    } catch (error) {
      throw new WebhookTargetRefused(`${bare} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  if (addresses.length === 0) throw new WebhookTargetRefused(`${bare} does not resolve`);
  const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
  if (blocked) {
    throw new WebhookTargetRefused(
      `${bare} resolves to ${blocked.address}, a private, loopback or link-local address; ` +
        `webhooks are sent only to public addresses (the operator can allow others with PAYLINK_WEBHOOK_ALLOW_PRIVATE=true)`,
    );
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/**
 * What can be decided without DNS when an endpoint is saved: the URL's shape, and hosts that are
 * private by name or literal. Returns a problem sentence, or undefined when the URL is acceptable.
 * http:// is accepted only where private targets are: the apiKey travels in the Authorization
 * header and must not cross the internet in clear.
 */
export function checkWebhookUrl(text: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `url ${JSON.stringify(text)} is not an absolute URL.`;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return `url must be an https:// URL, got ${JSON.stringify(text)}.`;
  if (url.username || url.password) return "url must not carry a user name or password; use the apiKey (sent as Authorization) instead.";
  if (url.hash) return "url must not have a #fragment.";
  if (allowPrivate) return undefined;
  if (url.protocol === "http:") return `url must be an https:// URL, got ${JSON.stringify(text)} (plain http:// is allowed only with PAYLINK_WEBHOOK_ALLOW_PRIVATE=true).`;
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const privateByName = host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal");
  if (privateByName || (isIP(host) !== 0 && !isPublicAddress(host))) {
    return `url ${JSON.stringify(text)} points to a private, loopback or link-local address; webhooks are sent only to public addresses.`;
  }
  return undefined;
}
