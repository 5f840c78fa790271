import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Ranges a webhook may never reach: the service's own network, cloud metadata, non-unicast. */
const REFUSED_RANGES = new Set([
  'unspecified',
  'broadcast',
  'multicast',
  'linkLocal', // 169.254.0.0/16 (cloud metadata 169.254.169.254), fe80::/10
  'loopback',
  'carrierGradeNat', // 100.64.0.0/10
  'private', // 10/8, 172.16/12, 192.168/16
  'reserved',
  'uniqueLocal', // fc00::/7 (includes fd00:ec2::254, AWS metadata over IPv6)
  'benchmarking',
  'amt',
  'as112',
  'deprecated',
  'orchid2',
  'droneRemoteIdProtocolEntityTags',
  'discard',
  // IPv6 forms that embed an IPv4 address (NAT64, 6to4, Teredo) could smuggle a private one.
  'rfc6145',
  'rfc6052',
  '6to4',
  'teredo',
]);

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];

/**
 * The one form an address is judged and connected by: IPv6 text as the WHATWG URL serializer
 * writes it (hex groups only: ipaddr.js alone reads `::8.8.8.8` as `::ffff:8.8.8.8`, where the
 * network reads `::808:808`), and an IPv4-mapped address (`::ffff:7f00:1`, however written) as
 * the IPv4 address it carries. Undefined for what is not an IP address.
 */
export function canonicalAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  let text = address;
  if (text.includes(':')) {
    try {
      // A zone id (`fe80::1%eth0`) only ever names a link-local address, which is refused anyway.
      text = new URL(`http://[${text.replace(/%.*$/, '')}]`).hostname.slice(1, -1);
    } catch {
      return undefined;
    }
  }
  if (!ipaddr.isValid(text)) return undefined;
  const parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed;
}

/** Why an address is refused, or null when it is a public unicast address. */
export function refusedAddressReason(address: string): string | null {
  const parsed = canonicalAddress(address);
  if (!parsed) return 'not an IP address';
  const range = parsed.range();
  if (REFUSED_RANGES.has(range)) return `${range} address`;
  // ::a.b.c.d (deprecated by RFC 4291) has no public use and may reach a.b.c.d through a tunnel.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).match(IPV4_COMPATIBLE)) return 'IPv4-compatible address';
  if (parsed.kind() === 'ipv4' && (parsed as ipaddr.IPv4).match(ipaddr.parse('0.0.0.0') as ipaddr.IPv4, 8)) return 'unspecified address';
  return null;
}

export class UnsafeUrlError extends Error {
  override name = 'UnsafeUrlError';
}

export interface UrlPolicy {
  livemode: boolean;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: lifts the address check (tests, local development only). */
  allowPrivate: boolean;
}

/** Shape checks that need no DNS: scheme, credentials, host. */
export function checkUrlShape(raw: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UnsafeUrlError('must use https (or http in test mode)');
  if (policy.livemode && url.protocol !== 'https:') throw new UnsafeUrlError('must use https in live mode');
  if (url.username || url.password) throw new UnsafeUrlError('must not carry credentials');
  if (!url.hostname) throw new UnsafeUrlError('must name a host');
  return url;
}

export interface ResolvedTarget {
  url: URL;
  /** The checked address the connection must use (pinned: no second lookup, no rebinding). */
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to (injectable for tests). */
export type HostResolver = (host: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: HostResolver = (host) => lookup(host, { all: true, verbatim: true });

/**
 * What a refusal of a host name says, whatever the reason: the rule, never an address the name
 * resolved to, nor whether it resolved at all, so the check is no DNS oracle for internal names.
 */
export const PUBLIC_ADDRESSES_RULE = 'must resolve to public addresses only (loopback, private, link-local, metadata and other reserved ranges are refused)';

/**
 * Resolves the URL's host and refuses it when any address it resolves to is not public
 * (unless allowed by configuration). Returns the address to pin the connection to, in the
 * canonical form it was judged in. A literal address is named with its range (the caller wrote
 * it); a host name is refused with PUBLIC_ADDRESSES_RULE only.
 */
export async function resolveSafeTarget(raw: string, policy: UrlPolicy, resolve: HostResolver = systemResolver): Promise<ResolvedTarget> {
  const url = checkUrlShape(raw, policy);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = ipaddr.isValid(host);
  const refuseName = () => new UnsafeUrlError(`host ${host} ${PUBLIC_ADDRESSES_RULE}`);
  let addresses: string[];
  if (literal) {
    addresses = [host];
  } else {
    try {
      addresses = (await resolve(host)).map((a) => a.address);
    } catch {
      // Told apart from a refused address only where private addresses are allowed anyway.
      throw policy.allowPrivate ? new UnsafeUrlError(`host ${host} does not resolve`) : refuseName();
    }
  }
  if (addresses.length === 0) throw policy.allowPrivate ? new UnsafeUrlError(`host ${host} does not resolve`) : refuseName();
  if (!policy.allowPrivate) {
    for (const a of addresses) {
      const reason = refusedAddressReason(a);
      if (reason) throw literal ? new UnsafeUrlError(`${host} is a refused ${reason}: webhooks may reach public addresses only`) : refuseName();
    }
  }
  const pinned = canonicalAddress(addresses[0]!);
  if (!pinned) throw literal ? new UnsafeUrlError(`${host} is not an IP address`) : refuseName();
  return { url, address: pinned.toString(), family: pinned.kind() === 'ipv6' ? 6 : 4 };
}

/**
 * An error of the connection to a pinned target, as recorded and shown: the host of the URL in
 * place of the address it was pinned to (Node's messages name the address, e.g. `connect
 * ECONNREFUSED 10.0.0.5:443`), so delivery records never show what a name resolved to.
 */
export function withoutPinnedAddress(message: string, target: Pick<ResolvedTarget, 'url' | 'address'>): string {
  const host = target.url.hostname;
  return message.split(target.address).join(host);
}
