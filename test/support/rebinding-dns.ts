import dgram from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import type { HostResolver } from '../../src/webhooks/ssrf.js';

/**
 * A real DNS server on 127.0.0.1 (UDP) whose answers the test writes: `answer(name, n)` gives the
 * IPv4 address for the n-th A query of `name` (0-based), with TTL 0 so nothing caches it. A
 * rebinding name answers one address first and another afterwards. AAAA and other queries get
 * an empty answer. `resolver` is a HostResolver that asks this server (through node:dns's
 * Resolver), for the service's resolver option; `queries(name)` counts the A queries it got.
 */
export interface RebindingDns {
  resolver: HostResolver;
  queries(name: string): number;
  close(): Promise<void>;
}

export async function startRebindingDns(answer: (name: string, n: number) => string | undefined): Promise<RebindingDns> {
  const counts = new Map<string, number>();
  const socket = dgram.createSocket('udp4');
  socket.on('message', (query, from) => {
    // The question: labels from byte 12 up to the zero label, then QTYPE and QCLASS.
    const labels: string[] = [];
    let at = 12;
    while (at < query.length && query[at] !== 0) {
      labels.push(query.subarray(at + 1, at + 1 + query[at]!).toString('ascii'));
      at += 1 + query[at]!;
    }
    const questionEnd = at + 5;
    const name = labels.join('.').toLowerCase();
    const isA = query.readUInt16BE(at + 1) === 1;
    let address: string | undefined;
    if (isA) {
      const n = counts.get(name) ?? 0;
      counts.set(name, n + 1);
      address = answer(name, n);
    }
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // the query's id
    header.writeUInt16BE(address || !isA ? 0x8180 : 0x8183, 2); // a response, recursion available; NXDOMAIN when an A query has no answer
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(address ? 1 : 0, 6);
    const parts = [header, query.subarray(12, questionEnd)];
    if (address) {
      const record = Buffer.alloc(16);
      record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      record.writeUInt16BE(1, 2); // A
      record.writeUInt16BE(1, 4); // IN
      record.writeUInt32BE(0, 6); // TTL 0: never cached
      record.writeUInt16BE(4, 10);
      address.split('.').forEach((octet, i) => record.writeUInt8(Number(octet), 12 + i));
      parts.push(record);
    }
    socket.send(Buffer.concat(parts), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const dns = new Resolver({ timeout: 2_000, tries: 1 });
  dns.setServers([`127.0.0.1:${socket.address().port}`]);
  return {
    resolver: async (host) => (await dns.resolve4(host)).map((address) => ({ address, family: 4 })),
    queries: (name) => counts.get(name.toLowerCase()) ?? 0,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
