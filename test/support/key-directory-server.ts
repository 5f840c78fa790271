/**
 * A key directory (draft-meunier-http-message-signatures-directory) served over real TLS on a
 * loopback address, with the private CA of tls-certs.ts: what an agent's operator publishes at
 * `<origin>/.well-known/http-message-signatures-directory`. The test sets what it answers
 * (`answer`), and sees every request it got.
 */
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculateJwkThumbprint } from 'jose';
import { DIRECTORY_MEDIA_TYPE, DIRECTORY_PATH } from '../../src/agent-keys/agent-key-deps.js';
import type { TestCerts } from './tls-certs.js';

export interface DirectoryRequest {
  path: string;
  accept: string | undefined;
  host: string | undefined;
}

export interface KeyDirectoryServer {
  /** `https://<host>:<port>` */
  origin: string;
  port: number;
  requests: DirectoryRequest[];
  /** How requests are answered from now on; by default the listing set by `list`. */
  answer: (req: IncomingMessage, res: ServerResponse) => void;
  /** Answers 200 with these keys (entries as given, malformed ones included) and the directory's media type, plus `headers`. */
  list(keys: readonly unknown[], headers?: Record<string, string>): void;
  close(): Promise<void>;
}

/** A directory entry for a public JWK: the key with `kid` set to its thumbprint, as the draft has it. */
export const directoryEntry = async (jwk: Record<string, unknown>) => ({ ...jwk, kid: await calculateJwkThumbprint(jwk as { kty: string }, 'sha256') });

export const directoryBody = (keys: readonly unknown[]) => JSON.stringify({ keys });

export async function startKeyDirectoryServer(certs: TestCerts, host = '127.0.0.1', port = 0): Promise<KeyDirectoryServer> {
  const requests: DirectoryRequest[] = [];
  const server = https.createServer({ cert: certs.serverCert, key: certs.serverKey });
  const state: KeyDirectoryServer = {
    origin: '',
    port: 0,
    requests,
    answer: (_req, res) => void res.writeHead(404).end(),
    list(keys, headers = {}) {
      state.answer = (req, res) => {
        if (req.url !== DIRECTORY_PATH) return void res.writeHead(404).end();
        res.writeHead(200, { 'content-type': DIRECTORY_MEDIA_TYPE, ...headers }).end(directoryBody(keys));
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    requests.push({ path: req.url ?? '', accept: req.headers.accept, host: req.headers.host });
    req.resume();
    state.answer(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  state.port = (server.address() as AddressInfo).port;
  state.origin = `https://${host}:${state.port}`;
  return state;
}

/**
 * Two directories on one port: the one a name is checked and pinned to (127.0.0.2), and another on
 * 127.0.0.1 that a second DNS answer would lead to (rebinding). Retries while the port is taken.
 */
export async function startDirectoryPair(certs: TestCerts): Promise<{ checked: KeyDirectoryServer; other: KeyDirectoryServer; close(): Promise<void> }> {
  for (let tries = 0; ; tries++) {
    const other = await startKeyDirectoryServer(certs, '127.0.0.1');
    try {
      const checked = await startKeyDirectoryServer(certs, '127.0.0.2', other.port);
      return { checked, other, close: async () => void (await Promise.all([checked.close(), other.close()])) };
    } catch (err) {
      await other.close();
      if (tries > 5) throw err;
    }
  }
}
