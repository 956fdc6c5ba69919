// The outbound-address guard (against server-side request forgery). Paylink sends requests to
// URLs a merchant chose — webhook deliveries, theme logo downloads — from inside the operator's
// network; without a guard a merchant could make Paylink probe or call internal services (cloud
// metadata at 169.254.169.254, admin ports on localhost…).
//
// The check runs at send time on the addresses the hostname resolves to *then* (a URL that was
// harmless when saved may later resolve elsewhere), and the connection is made to the vetted
// address itself (the webhook sender and the logo download pass it as the socket's lookup result), so a DNS answer that changes
// between the check and the connect (DNS rebinding) cannot slip a private address in.
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/** IPv4 addresses that are not on the public internet (IANA special-purpose registry). */
const BLOCKED_IPV4 = new BlockList();
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
  BLOCKED_IPV4.addSubnet(network, prefix, "ipv4");
}

/**
 * IPv6 is judged by allow-list: only global unicast (2000::/3) can be public, which refuses in
 * one rule everything else — unspecified and loopback, IPv4-compatible (::/96, deprecated) and
 * IPv4-mapped (::ffff:0:0/96) addresses, local-use NAT64 (64:ff9b:1::/48), discard-only, unique-
 * and link-local, site-local, multicast, and the unallocated space. The one exception is the
 * well-known NAT64 prefix, judged by the IPv4 address it carries (see EMBEDDED_IPV4).
 *
 * Separate lists, and never an IPv4 rule beside IPv6 ones: BlockList matches IPv4 addresses
 * against IPv4-mapped IPv6 rules and mapped IPv6 addresses against IPv4 rules.
 */
const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet("2000::", 3, "ipv6");

/** Parts of global unicast that are not on the public internet. */
const BLOCKED_IPV6 = new BlockList();
for (const [network, prefix] of [
  ["2001::", 23], // IETF protocol assignments: Teredo (2001::/32), benchmarking, ORCHID…
  ["2001:db8::", 32], // documentation
  ["3fff::", 20], // documentation (RFC 9637)
] as const) {
  BLOCKED_IPV6.addSubnet(network, prefix, "ipv6");
}

/**
 * Prefixes whose addresses carry an IPv4 address, which is what the packet reaches in the end:
 * such an address is public only when the IPv4 address is. `offset` is the byte where it starts.
 */
const EMBEDDED_IPV4: Array<{ prefix: BlockList; offset: number }> = [
  { prefix: subnet("64:ff9b::", 96), offset: 12 }, // well-known NAT64 prefix (RFC 6052): 64:ff9b::a.b.c.d
  { prefix: subnet("2002::", 16), offset: 2 }, // 6to4 (RFC 3056): 2002:AABB:CCDD::/48
];

function subnet(network: string, prefix: number): BlockList {
  const list = new BlockList();
  list.addSubnet(network, prefix, "ipv6");
  return list;
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !BLOCKED_IPV4.check(address, "ipv4");
  if (family !== 6) return false;
  const bytes = ipv6Bytes(address);
  // Checked in a form BlockList cannot read as IPv4: eight groups, no zone, no dotted quad.
  const canonical = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16)).join(":");
  for (const { prefix, offset } of EMBEDDED_IPV4) {
    if (prefix.check(canonical, "ipv6")) return isPublicAddress(bytes.slice(offset, offset + 4).join("."));
  }
  return GLOBAL_UNICAST.check(canonical, "ipv6") && !BLOCKED_IPV6.check(canonical, "ipv6");
}

/** The 16 bytes of an address that isIP() accepted as IPv6 (a zone, "%eth0", is left out). */
function ipv6Bytes(address: string): number[] {
  let text = address.split("%")[0]!;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(":").map((group) => parseInt(group, 16)) : []);
  const front = groups(head);
  const back = groups(tail);
  const all = tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  return all.flatMap((group) => [group >> 8, group & 0xff]);
}

export interface VettedAddress {
  address: string;
  family: 4 | 6;
}

/** The target is not allowed: a private, loopback, link-local… address, or a hostname that does not resolve. */
export class OutboundTargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OutboundTargetRefused";
  }
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;
const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * Resolves a URL's hostname and returns the address to connect to. Every address the name
 * resolves to must be public: a name with one private address among public ones is refused, so
 * that which address the check saw and which the socket picks can never differ in kind.
 */
export async function vetOutboundHost(hostname: string, resolver: Resolver = systemResolver): Promise<VettedAddress> {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  const literal = isIP(bare);
  let addresses: { address: string; family: number }[];
  if (literal !== 0) addresses = [{ address: bare, family: literal }];
  else {
    try {
      addresses = await resolver(bare);
    } catch (error) {
      throw new OutboundTargetRefused(`${bare} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  if (addresses.length === 0) throw new OutboundTargetRefused(`${bare} does not resolve`);
  const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
  if (blocked) {
    throw new OutboundTargetRefused(
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
  if (url.protocol === "http:")
    return `url must be an https:// URL, got ${JSON.stringify(text)} (plain http:// is allowed only with PAYLINK_WEBHOOK_ALLOW_PRIVATE=true).`;
  // A fully qualified name's final dot names the same host ("localhost." is localhost).
  const host = (url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname).replace(/\.+$/, "");
  const privateByName = host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal");
  if (privateByName || (isIP(host) !== 0 && !isPublicAddress(host))) {
    return `url ${JSON.stringify(text)} points to a private, loopback or link-local address; webhooks are sent only to public addresses.`;
  }
  return undefined;
}
