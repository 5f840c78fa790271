import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenHttp } from '../../src/http/listen.js';
import { ListenError, listenErrorMessage } from '../../src/kernel/listen.js';

describe('listenHttp', () => {
  let blocker: net.Server;
  let port: number;
  beforeAll(async () => {
    blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    port = (blocker.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

  it('rejects with a ListenError naming the port when another program holds it', async () => {
    const err = await listenHttp(port, '127.0.0.1').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ListenError);
    expect((err as Error).message).toBe(`port ${port} on 127.0.0.1 is already in use (another spend-auth, or another program): stop it or set PORT to a free port`);
  });

  it('binds a free port and answers 503 until the app is attached', async () => {
    const server = await listenHttp(0, '127.0.0.1');
    try {
      const { port: bound } = server.address() as net.AddressInfo;
      const res = await fetch(`http://127.0.0.1:${bound}/healthz`);
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('listenErrorMessage', () => {
  it.each([
    ['EACCES', 80, '0.0.0.0', 'no permission to listen on port 80 on 0.0.0.0 (ports below 1024 need privileges): set PORT to 1024 or above'],
    ['EADDRNOTAVAIL', 3000, '10.9.9.9', 'cannot listen on 10.9.9.9: it is not an address of this machine; set HOST to one of its addresses, 127.0.0.1 or 0.0.0.0'],
    ['ENOTFOUND', 3000, 'nowhere.invalid', 'cannot listen on nowhere.invalid: it is not an address of this machine; set HOST to one of its addresses, 127.0.0.1 or 0.0.0.0'],
  ])('%s on port %s of %s says what to change', (code, p, host, message) => {
    expect(listenErrorMessage(Object.assign(new Error('x'), { code }), p, host)).toBe(message);
  });
});
