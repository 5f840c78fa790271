/**
 * Temporal Cloud-style mTLS, on a real Temporal server: the dev server speaks plain gRPC, so a TLS
 * terminator on 127.0.0.1 (Node's tls, requiring a client certificate from our test CA) stands in
 * front of it, as Temporal Cloud's endpoint does. The API's client and the worker's native
 * connection both go through it with TEMPORAL_TLS_CERT/KEY/CA; without the client certificate the
 * engine is out of reach.
 */
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EngineUnavailable } from '../../src/approvals/hold-engine.js';
import { TemporalGateway } from '../../src/temporal/gateway.js';
import { heldWorkflowId } from '../../src/temporal/ids.js';
import { policyBody, type TestAccount } from '../support/context.js';
import { openEngineStack, type EngineStack } from '../support/engine-stack.js';
import { openServer, serverModeOrSkip, SERVER_REQUIRED, type ServerEnvironment } from '../support/temporal-server.js';
import { hasOpenssl, makeTestCerts, type TestCerts } from '../support/tls-certs.js';
import { until } from '../support/wait.js';

const mode = serverModeOrSkip('tls');
const openssl = hasOpenssl();
if (mode && !openssl) {
  if (SERVER_REQUIRED) throw new Error('[tls] CI=true but the openssl command is missing (Debian package openssl)');
  console.log('[tls] skipped: the openssl command is missing (Debian package openssl)');
}

describe.skipIf(!mode || !openssl)('mTLS to the engine (TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY, TEMPORAL_TLS_CA)', () => {
  let certs: TestCerts;
  let server: ServerEnvironment;
  let proxy: tls.Server;
  let proxyAddress: string;
  let stack: EngineStack;
  let acct: TestAccount;
  let handshakes = 0;

  beforeAll(async () => {
    certs = makeTestCerts();
    server = await openServer(mode!);
    const [host, port] = [server.address.slice(0, server.address.lastIndexOf(':')), Number(server.address.slice(server.address.lastIndexOf(':') + 1))];
    proxy = tls.createServer({ key: certs.serverKey, cert: certs.serverCert, ca: certs.ca, requestCert: true, rejectUnauthorized: true, ALPNProtocols: ['h2'] }, (socket) => {
      handshakes += 1;
      const upstream = net.connect({ host, port });
      socket.pipe(upstream).pipe(socket);
      const close = () => {
        socket.destroy();
        upstream.destroy();
      };
      socket.on('error', close);
      upstream.on('error', close);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyAddress = `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
    // Files, as an operator sets them: TEMPORAL_TLS_CERT=/path/client.pem and so on.
    stack = await openEngineStack(mode!, { server, address: proxyAddress, tls: { cert: certs.files.clientCert, key: certs.files.clientKey, ca: certs.files.ca } });
    acct = await stack.ctx.account('growth');
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    proxy?.close();
    await server?.teardown();
    certs?.remove();
  });

  test('a held request runs through the TLS endpoint end to end: started by the relay, approved through the API', async () => {
    const p = await acct.test.post('/v1/policies', policyBody({ require_approval_above: 100 }));
    const agentId = (await acct.test.post('/v1/agents', { name: 'tls bot', policy_id: p.body.id })).body.id;
    const held = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' });
    const id = held.body.decision_id as string;
    const handle = server.env.client.workflow.getHandle(heldWorkflowId(id));
    await until('workflow started through TLS', async () => ((await handle.describe()).historyLength >= 3 ? true : undefined));

    const approved = await acct.test.post(`/v1/approvals/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved' });
    expect(handshakes).toBeGreaterThanOrEqual(2);
  });

  test('without a client certificate the endpoint refuses: the engine is unavailable, nothing starts', async () => {
    const noCert = new TemporalGateway({ address: proxyAddress, namespace: server.namespace, taskQueue: stack.settings.taskQueue, tls: { ca: certs.ca } });
    try {
      expect(await noCert.health()).toBe('down');
      await expect(noCert.heldWorkflowState('dec_none')).rejects.toBeInstanceOf(EngineUnavailable);
    } finally {
      await noCert.close();
    }
  });
});
