/**
 * A private CA with a server certificate for 127.0.0.1 and a client certificate, made with the
 * openssl command line (Debian's openssl package; .ci/run installs it), for mTLS tests.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCerts {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** Paths of the client's files, as TEMPORAL_TLS_* would name them. */
  files: { ca: string; clientCert: string; clientKey: string };
  remove(): void;
}

export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function makeTestCerts(): TestCerts {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spend-auth-tls-'));
  const f = (name: string) => path.join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=spend-auth test CA', '-keyout', f('ca.key'), '-out', f('ca.pem'));
  for (const [name, subject, ext] of [
    ['server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth'],
    ['client', '/CN=spend-auth worker', 'extendedKeyUsage=clientAuth'],
  ] as const) {
    fs.writeFileSync(f(`${name}.ext`), `${ext}\n`);
    ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', subject, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`));
    ssl('x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-days', '1', '-extfile', f(`${name}.ext`), '-out', f(`${name}.pem`));
  }
  const read = (name: string) => fs.readFileSync(f(name), 'utf8');
  return {
    ca: read('ca.pem'),
    serverCert: read('server.pem'),
    serverKey: read('server.key'),
    clientCert: read('client.pem'),
    clientKey: read('client.key'),
    files: { ca: f('ca.pem'), clientCert: f('client.pem'), clientKey: f('client.key') },
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
