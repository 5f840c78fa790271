/**
 * The OpenAPI document against the app itself: every route Express serves is documented, and
 * every documented operation is served (answered by a handler, not the unknown-route 404).
 */
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import { createApp } from '../../src/app.js';
import { AppError } from '../../src/errors.js';
import { buildOpenApiDocument, createRouteMatcher, toOpenApiPath } from '../../src/http/openapi.js';
import { ROUTE_DOCS } from '../../src/http/route-docs.js';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { TEST_IDEMPOTENCY_KEY } from '../support/server-keys.js';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: unknown;
}

const join = (prefix: string, path: string) => `${prefix}/${path}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');

/** Every (method, path) the router serves, walking mounted routers (Express 5: `app.router.stack`). */
function expressRoutes(stack: Layer[], prefix = ''): string[] {
  const out: string[] = [];
  for (const layer of stack) {
    if (layer.route) {
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (on && method !== '_all') out.push(`${method.toUpperCase()} ${join(prefix, layer.route.path)}`);
      }
    } else if (Array.isArray(layer.handle?.stack)) {
      if (typeof layer.rawPath !== 'string') throw new Error('a mounted router without a string path: teach this walker about it');
      out.push(...expressRoutes(layer.handle.stack, join(prefix, layer.rawPath)));
    }
  }
  return out;
}

const documented = ROUTE_DOCS.map((r) => `${r.method.toUpperCase()} ${r.path}`);

let ctx: TestContext;
let app: Express;
let account: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext();
  account = await ctx.account();
  app = createApp({
    db: ctx.database.db,
    signer: ctx.signer,
    gateway: ctx.gateway,
    idempotencyKey: TEST_IDEMPOTENCY_KEY,
    authenticate: async () => {
      throw new AppError('unauthorized', 'not used');
    },
  });
});
afterAll(() => ctx?.close());

describe('the route registry and the Express router', () => {
  it('lists every route the app serves, with its method', () => {
    const served = expressRoutes((app as unknown as { router: { stack: Layer[] } }).router.stack);
    expect(served.length).toBeGreaterThan(30);
    const undocumented = served.filter((r) => !documented.includes(r));
    expect(undocumented, 'routes served but missing from src/http/route-docs.ts').toEqual([]);
  });

  it('documents each route once', () => {
    expect(new Set(documented).size).toBe(documented.length);
  });
});

describe('every documented operation is served', () => {
  test.each(ROUTE_DOCS.map((r) => [r.method.toUpperCase(), r.path] as const))('%s %s', async (method, path) => {
    const url = path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => `${name}_doesnotexist`);
    const res = await ctx.raw(url, {
      method,
      headers: { authorization: `Bearer ${account.test.key}`, ...(method === 'POST' || method === 'PATCH' ? { 'content-type': 'application/json' } : {}) },
      body: method === 'POST' || method === 'PATCH' ? '{}' : undefined,
    });
    const unknownRoute = res.status === 404 && typeof res.body === 'object' && /^Unrecognized request URL/.test(res.body?.error?.message ?? '');
    expect(unknownRoute, `${method} ${url} answered ${res.status} ${res.text.slice(0, 200)}`).toBe(false);
  });

  it('an undocumented path still answers the unknown-route envelope (the check above can fail)', async () => {
    const res = await account.test.get('/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.error.message).toMatch(/^Unrecognized request URL/);
  });
});

describe('GET /v1/openapi.json', () => {
  it('is public and serves the OpenAPI 3.1 document built from the registry', async () => {
    const res = await ctx.raw('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('has every documented operation under its OpenAPI path, each with a unique operationId and declared path parameters', () => {
    const doc = buildOpenApiDocument();
    const ids = new Set<string>();
    for (const route of ROUTE_DOCS) {
      const op = doc.paths[toOpenApiPath(route.path)]?.[route.method];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(ids.has(op.operationId)).toBe(false);
      ids.add(op.operationId);
      const declared = (op.parameters ?? []).filter((p: { in: string }) => p.in === 'path').map((p: { name: string }) => p.name);
      expect(declared).toEqual([...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]));
      expect(Object.keys(op.responses)).toContain(String(route.response.status));
      if (route.roles === 'public') expect(op.security).toEqual([]);
      else expect(op.responses['401']).toBeDefined();
    }
  });

  it('derives request bodies and query parameters from the zod schemas the handlers parse with', () => {
    const doc = buildOpenApiDocument();
    const authorize = doc.paths['/v1/authorize']!.post.requestBody.content['application/json'].schema;
    expect(authorize).toMatchObject({ type: 'object', additionalProperties: false });
    expect(authorize.required).toEqual(['agent_id', 'amount', 'currency', 'vendor']);
    expect(authorize.properties.amount).toMatchObject({ type: 'integer', exclusiveMinimum: 0 });
    expect(authorize.properties.currency.pattern).toBe('^[A-Z]{3}$');
    expect(authorize.$schema).toBeUndefined();

    const audit = doc.paths['/v1/audit-logs']!.get.parameters;
    expect(audit.find((p: { name: string }) => p.name === 'limit')).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', maximum: 100, default: 50 } });
    expect(audit.find((p: { name: string }) => p.name === 'decision').schema.enum).toEqual(['approved', 'denied', 'held']);

    const createPolicy = doc.paths['/v1/policies']!.post.requestBody.content['application/json'].schema;
    expect(createPolicy.required).toEqual(['name', 'budget_monthly', 'budget_single_max']);
    // Idempotency-Key is offered on authenticated POSTs only.
    expect(doc.paths['/v1/authorize']!.post.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key');
  });

  it('resolves every $ref it uses', () => {
    const doc = buildOpenApiDocument();
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      const target = ref.split('/').reduce<any>((node, key) => node?.[key], doc);
      expect(target, ref).toBeDefined();
    }
  });
});

describe('GET /docs', () => {
  it('is a self-contained HTML page listing every operation, with no script and no remote resource', async () => {
    const res = await ctx.raw('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    for (const route of ROUTE_DOCS) {
      expect(res.text).toContain(`<span class="m ${route.method}">${route.method.toUpperCase()}</span> <code>${toOpenApiPath(route.path)}</code>`);
    }
    expect(res.text).not.toMatch(/<script|https?:\/\/(?!localhost)/i);
    expect(res.text).toContain('href="/v1/openapi.json"');
  });
});

describe('the route matcher (the route label of metrics and logs)', () => {
  const match = createRouteMatcher();
  test.each([
    ['GET', '/v1/agents/agt_123', '/v1/agents/:id'],
    ['POST', '/v1/agents/agt_123/freeze', '/v1/agents/:id/freeze'],
    ['GET', '/v1/agents/', '/v1/agents'],
    ['HEAD', '/healthz', '/healthz'],
    ['GET', '/v1/.well-known/jwks.json', '/v1/.well-known/jwks.json'],
    ['GET', '/v1/audit-logs/verify', '/v1/audit-logs/verify'],
  ])('%s %s → %s', (method, path, pattern) => {
    expect(match(method, path)).toBe(pattern);
  });
  test.each([
    ['GET', '/v1/agents/agt_1/extra'],
    ['PUT', '/v1/agents/agt_1'],
    ['GET', '/v1/nothing'],
    ['GET', '/v1/.well-known/jwksXjson'],
  ])('%s %s matches nothing', (method, path) => {
    expect(match(method, path)).toBeUndefined();
  });
});
