/**
 * The generated client of our own callers (src/client/): it reaches the document's paths under
 * the service's root however the base address is written, and sends the key on every call. The
 * service here is a fake fetch that records requests (the MCP and dashboard tests use the real one).
 */
import { describe, expect, it, test } from 'vitest';
import { createApiClient, serviceRoot } from '../../src/client/api-client.js';

const KEY = `gc_test_${'a'.repeat(40)}`;

describe('serviceRoot', () => {
  test.each([
    ['http://localhost:3000/v1', 'http://localhost:3000'],
    ['http://localhost:3000/v1/', 'http://localhost:3000'],
    ['http://localhost:3000', 'http://localhost:3000'],
    ['https://api.example/spend/v1', 'https://api.example/spend'],
    ['https://api.example/v1x', 'https://api.example/v1x'],
  ])('%s → %s', (base, root) => {
    expect(serviceRoot(base)).toBe(root);
  });
});

describe('createApiClient', () => {
  it('fills path parameters, serializes the query, and sends the key and Accept on each call', async () => {
    const seen: Request[] = [];
    const api = createApiClient({
      baseUrl: 'http://service.test/v1',
      apiKey: KEY,
      fetch: async (req) => {
        seen.push(req);
        return Response.json({ object: 'decision', decision_id: 'dec_1/x' });
      },
    });
    const res = await api.GET('/v1/decisions/{id}', { params: { path: { id: 'dec_1/x' }, query: { wait: 5 } } });
    expect(res.data).toEqual({ object: 'decision', decision_id: 'dec_1/x' });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe('http://service.test/v1/decisions/dec_1%2Fx?wait=5');
    expect(seen[0]!.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(seen[0]!.headers.get('accept')).toBe('application/json');
  });

  it('gives the error envelope of a failed call as `error`, never as data', async () => {
    const api = createApiClient({
      baseUrl: 'http://service.test',
      apiKey: KEY,
      fetch: async () => Response.json({ error: { code: 'not_found', message: 'No such agent' } }, { status: 404 }),
    });
    const res = await api.GET('/v1/agents/{id}', { params: { path: { id: 'agt_x' } } });
    expect(res.data).toBeUndefined();
    expect(res.error).toEqual({ error: { code: 'not_found', message: 'No such agent' } });
    expect(res.response.status).toBe(404);
  });
});
