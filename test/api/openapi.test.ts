/**
 * The OpenAPI document against the app itself: every route Express serves is documented, and
 * every documented operation is served (answered by a handler, not the unknown-route 404).
 */
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { AppError } from '../../src/kernel/errors.js';
import { buildOpenApiDocument, toOpenApiPath } from '../../src/http/openapi.js';
import { createRouteMatcher } from '../../src/http/route.js';
import { ROUTES } from '../../src/http/routes/index.js';
import { EVENT_TYPES } from '../../src/events/events.repository.js';
import { buildSignedDelivery, DELIVERY_HEADER, EVENT_HEADER, PREVIOUS_SIGNATURE_HEADER, SIGNATURE_HEADER } from '../../src/webhooks/signature.js';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { checkResponse, checkWebhook, componentValidator, takeProblems } from '../support/openapi-conformance.js';
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

const documented = ROUTES.map((r) => `${r.method.toUpperCase()} ${r.path}`);

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
    engine: ctx.engine,
    idempotencyKey: TEST_IDEMPOTENCY_KEY,
    authenticate: async () => {
      throw new AppError('unauthorized', 'not used');
    },
  });
});
afterAll(() => ctx?.close());

describe('the route declarations and the Express router', () => {
  it('lists every route the app serves, with its method', () => {
    const served = expressRoutes((app as unknown as { router: { stack: Layer[] } }).router.stack);
    expect(served.length).toBeGreaterThan(30);
    const undocumented = served.filter((r) => !documented.includes(r));
    expect(undocumented, 'routes served but not declared in src/http/routes/').toEqual([]);
    const unmounted = documented.filter((r) => !served.includes(r));
    expect(unmounted, 'routes declared (and documented) but not mounted by src/http/app.ts').toEqual([]);
  });

  it('documents each route once', () => {
    expect(new Set(documented).size).toBe(documented.length);
  });
});

describe('every documented operation is served', () => {
  test.each(ROUTES.map((r) => [r.method.toUpperCase(), r.path] as const))('%s %s', async (method, path) => {
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
    for (const route of ROUTES) {
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

describe('response objects, headers, links and webhooks', () => {
  const doc = buildOpenApiDocument() as any;
  const schemas = doc.components.schemas as Record<string, any>;

  it('has a named component schema for every object the API answers', () => {
    const expected = [
      'Error', 'Decision', 'Approval', 'ApprovalList', 'Agent', 'AgentList', 'Policy', 'PolicyList', 'DeletedPolicy', 'PolicySimulation',
      'ApiKey', 'CreatedApiKey', 'ApiKeyList', 'WebhookEndpoint', 'WebhookEndpointWithSecret', 'DeletedWebhookEndpoint', 'WebhookEndpointList',
      'WebhookDelivery', 'WebhookDeliveryList', 'Event', 'EventList', 'AuditRecord', 'AuditRecordList', 'AuditVerification', 'Usage', 'JWKS',
      'TokenVerification', 'QuickstartAgent', 'Vault', 'QuickstartAuthorization', 'Health', 'Readiness',
    ];
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(expected));
    for (const [name, schema] of Object.entries(schemas)) expect(schema.description, `${name} has a description`).toMatch(/\S/);
  });

  it('describes objects exactly: required fields, nullability, enums, date-time formats and id patterns', () => {
    const agent = schemas.Agent;
    expect(agent.additionalProperties).toBe(false);
    expect(agent.required).toEqual(expect.arrayContaining(['id', 'object', 'name', 'policy_id', 'status', 'kyc_status', 'metadata', 'created_at']));
    expect(agent.properties.id.pattern).toBe('^agt_[0-9A-Za-z]+$');
    expect(agent.properties.object.const).toBe('agent');
    expect(agent.properties.status.enum).toEqual(['active', 'frozen', 'deactivated']);
    expect(agent.properties.created_at).toMatchObject({ type: 'string', format: 'date-time' });
    expect(agent.properties.policy_id.anyOf).toEqual([expect.objectContaining({ type: 'string', pattern: '^pol_[0-9A-Za-z]+$' }), { type: 'null' }]);

    const decision = schemas.Decision;
    expect(decision.required).not.toContain('authorization_token');
    expect(decision.required).not.toContain('expires_at');
    expect(decision.properties.decision.enum).toEqual(['approved', 'denied', 'held']);
    expect(decision.properties.status.enum).toEqual(['approved', 'denied', 'pending', 'expired']);
    expect(decision.properties.decision_id.pattern).toBe('^dec_[0-9A-Za-z]+$');
    // The one-time secrets appear only in the objects that carry them.
    expect(schemas.ApiKey.properties.key).toBeUndefined();
    expect(schemas.CreatedApiKey.required).toContain('key');
    expect(schemas.WebhookEndpoint.properties.secret).toBeUndefined();
    expect(schemas.WebhookEndpointWithSecret.required).toContain('secret');
    expect(schemas.AgentList.properties.data.items).toEqual({ $ref: '#/components/schemas/Agent' });
    expect(schemas.ApprovalList.properties.data.items).toEqual({ $ref: '#/components/schemas/Approval' });
  });

  it("references a component schema from every operation's JSON success response", () => {
    for (const route of ROUTES) {
      const response = doc.paths[toOpenApiPath(route.path)][route.method].responses[String(route.response.status)];
      for (const [type, media] of Object.entries(response.content as Record<string, { schema: { $ref?: string } }>)) {
        if (type !== 'application/json') continue;
        const target = media.schema.$ref?.replace('#/components/schemas/', '');
        expect(target && schemas[target], `${route.method} ${route.path}`).toBeDefined();
      }
    }
  });

  it('lists 4XX answers with the error envelope, and the headers the code sends', () => {
    for (const route of ROUTES) {
      const op = doc.paths[toOpenApiPath(route.path)][route.method];
      if (route.roles !== 'public') {
        for (const status of ['400', '401', '429']) expect(op.responses[status], `${route.method} ${route.path} ${status}`).toBeDefined();
      }
    }
    const tooMany = doc.components.responses.TooManyRequests;
    expect(tooMany.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(Object.keys(tooMany.headers)).toEqual(expect.arrayContaining(['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id']));
    const authorize = doc.paths['/v1/authorize'].post.responses['200'].headers;
    expect(Object.keys(authorize)).toEqual(expect.arrayContaining(['X-Request-Id', 'X-RateLimit-Limit', 'Idempotent-Replayed']));
    expect(doc.paths['/v1/audit-logs'].get.responses['200'].headers['X-Next-Cursor']).toBeDefined();
    expect(Object.keys(doc.paths['/v1/audit-logs'].get.responses['200'].content)).toEqual(['application/json', 'text/csv']);
    expect(doc.paths['/v1/approvals/{decision_id}/approve'].post.responses['503']).toBeDefined();
    expect(doc.paths['/v1/policies/{id}'].delete.responses['409']).toBeDefined();
  });

  it('links creates to the operations on what they created, by operationId', () => {
    const operationIds = new Set(Object.values(doc.paths).flatMap((item: any) => Object.values(item).map((op: any) => op.operationId)));
    const linksOf = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].links ?? {};
    expect(linksOf('/v1/agents', 'post', '201').RetrieveAgent).toEqual({ operationId: 'getV1AgentsId', parameters: { id: '$response.body#/id' }, description: expect.any(String) });
    expect(Object.keys(linksOf('/v1/policies', 'post', '201'))).toEqual(['RetrievePolicy', 'UpdatePolicy', 'DeletePolicy']);
    expect(linksOf('/v1/webhook-endpoints', 'post', '201').DeleteWebhookEndpoint).toBeDefined();
    expect(linksOf('/v1/api-keys', 'post', '201').RevokeApiKey).toBeDefined();
    expect(linksOf('/v1/authorize', 'post', '200').RetrieveDecision.parameters).toEqual({ id: '$response.body#/decision_id' });
    for (const item of Object.values(doc.paths) as any[]) {
      for (const op of Object.values(item) as any[]) {
        for (const response of Object.values(op.responses) as any[]) {
          for (const l of Object.values(response.links ?? {}) as any[]) expect(operationIds.has(l.operationId)).toBe(true);
        }
      }
    }
  });

  it('documents a webhook for every event type, with the signature headers the deliveries carry', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const post = doc.webhooks[type].post;
      expect(post.parameters.map((p: { name: string }) => p.name)).toEqual([SIGNATURE_HEADER, PREVIOUS_SIGNATURE_HEADER, EVENT_HEADER, DELIVERY_HEADER]);
      const name = post.requestBody.content['application/json'].schema.$ref.replace('#/components/schemas/', '');
      const payload = schemas[name];
      expect(payload.properties.event.const).toBe(type);
      expect(payload.required).toEqual(['id', 'event', 'data', 'timestamp', 'signature']);
    }
    expect(schemas.AuthorizeApprovedWebhook.properties.data).toEqual({ $ref: '#/components/schemas/DecisionEventData' });
    expect(schemas.DecisionEventData.properties.authorization_token).toBeUndefined();
    expect(schemas.AgentFrozenWebhook.properties.data).toEqual({ $ref: '#/components/schemas/Agent' });
    expect(schemas.ApprovalCompletedWebhook.properties.data).toEqual({ $ref: '#/components/schemas/ApprovalCompletedData' });
  });

  it('matches a signed delivery body as the webhook code builds it', () => {
    const agent = { id: 'agt_1', object: 'agent', name: 'a', agent_type: null, policy_id: null, status: 'frozen', kyc_status: 'pending', metadata: {}, livemode: false, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };
    const { body } = buildSignedDelivery({ id: 'evt_1', type: 'agent.frozen', data: agent, created_at: new Date('2026-01-01T00:00:00Z') }, 'whsec_x');
    const validate = componentValidator('AgentFrozenWebhook');
    expect(validate(JSON.parse(body)), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe('the conformance check of test responses (test/support/openapi-conformance.ts)', () => {
  const json = (extra: Record<string, string> = {}) => new Headers({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'req_1', ...extra });

  it('flags an undocumented status, an undocumented field, a missing required header and a bad webhook body (so it can fail)', () => {
    takeProblems();
    checkResponse('GET', '/v1/agents/agt_1', { status: 418, headers: json(), body: {}, text: '{}' });
    checkResponse('GET', '/v1/agents/agt_1', { status: 404, headers: json(), body: { error: { code: 'not_found', message: 'x', stack: 'at x.ts:1' } }, text: '' });
    checkResponse('GET', '/v1/agents/agt_1', { status: 404, headers: new Headers({ 'content-type': 'application/json' }), body: { error: { code: 'not_found', message: 'x' } }, text: '' });
    checkResponse('GET', '/v1/usage', { status: 429, headers: json(), body: { error: { code: 'rate_limited', message: 'x' } }, text: '' });
    checkWebhook({ 'x-service-event': 'agent.frozen', 'x-service-signature': 'sha256=00', 'x-service-delivery': 'evt_1' }, JSON.stringify({ id: 'evt_1', event: 'agent.frozen', data: {}, timestamp: 'now', signature: 'x' }));
    const problems = takeProblems();
    expect(problems).toHaveLength(5);
    expect(problems[0]).toMatch(/418: status not documented/);
    expect(problems[1]).toMatch(/additional properties/);
    expect(problems[2]).toMatch(/required header X-Request-Id missing/);
    expect(problems[3]).toMatch(/required header Retry-After missing/);
    expect(problems[4]).toMatch(/^webhook agent\.frozen: body does not match/);
  });

  it('accepts an answer the document lists', async () => {
    takeProblems();
    const res = await account.test.get('/v1/agents?limit=1');
    expect(res.status).toBe(200);
    checkResponse('GET', '/v1/agents?limit=1', res);
    expect(takeProblems()).toEqual([]);
  });
});

describe('GET /docs', () => {
  it('is a self-contained HTML page listing every operation, with no script and no remote resource', async () => {
    const res = await ctx.raw('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    for (const route of ROUTES) {
      expect(res.text).toContain(`<span class="m ${route.method}">${route.method.toUpperCase()}</span> <code>${toOpenApiPath(route.path)}</code>`);
    }
    expect(res.text).not.toMatch(/<script|https?:\/\/(?!localhost)/i);
    expect(res.text).toContain('href="/v1/openapi.json"');
  });
});

describe('the route matcher (the route label of metrics and logs)', () => {
  const match = createRouteMatcher(ROUTES);
  test.each([
    ['GET', '/v1/agents/agt_123', '/v1/agents/:id'],
    ['POST', '/v1/agents/agt_123/freeze', '/v1/agents/:id/freeze'],
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
    // Routing is case-sensitive and strict (DECISIONS §19), and the label follows the router.
    ['GET', '/v1/agents/'],
    ['GET', '/v1/AGENTS'],
  ])('%s %s matches nothing', (method, path) => {
    expect(match(method, path)).toBeUndefined();
  });
});
