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

/** Why an address is refused, or null when it is a public unicast address. */
export function refusedAddressReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let parsed = ipaddr.parse(address);
  // ::ffff:127.0.0.1 and friends are judged as the IPv4 address they carry.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  if (REFUSED_RANGES.has(range)) return `${range} address`;
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

/**
 * Resolves the URL's host and refuses it when any address it resolves to is not public
 * (unless allowed by configuration). Returns the address to pin the connection to.
 */
export async function resolveSafeTarget(raw: string, policy: UrlPolicy): Promise<ResolvedTarget> {
  const url = checkUrlShape(raw, policy);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (ipaddr.isValid(host)) {
    addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw new UnsafeUrlError(`host ${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new UnsafeUrlError(`host ${host} does not resolve`);
  if (!policy.allowPrivate) {
    for (const a of addresses) {
      const reason = refusedAddressReason(a.address);
      if (reason) throw new UnsafeUrlError(`host ${host} resolves to a refused ${reason} (${a.address})`);
    }
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
