import { z } from 'zod';
import { eventSummary } from '../webhooks/event.view.js';
import { EVENT_TYPES, type EventType } from '../events/events.repository.js';
import { DELIVERY_HEADER, EVENT_HEADER, PREVIOUS_SIGNATURE_HEADER, SIGNATURE_HEADER } from '../webhooks/signature.js';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from './errors.js';
import { IDEMPOTENCY_HEADER } from './idempotency.js';
import { API_VERSION } from '../kernel/api-version.js';
import { STORABLE_TEXT_PATTERN } from '../kernel/schemas.js';
import { componentSchemas, webhookComponentName } from './openapi-components.js';
import type { Route } from './route.js';
import { ROUTES } from './routes/index.js';

type JsonSchema = Record<string, unknown>;

/**
 * The input guard (input-guard.ts) refuses NUL in every path segment, query value and body string,
 * whatever the route's schema says: each string a client sends without a pattern of its own gets
 * this one. (Unpaired surrogates, refused too, are beyond what JSON Schema tools generate from.)
 */
const NO_NUL = { pattern: STORABLE_TEXT_PATTERN };

function withNoNul(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withNoNul);
  if (!node || typeof node !== 'object') return node;
  const out: JsonSchema = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'enum' || k === 'const' || k === 'default' ? v : withNoNul(v)]));
  const isFreeString = out.type === 'string' && out.pattern === undefined && out.enum === undefined && out.const === undefined;
  return isFreeString ? { ...out, ...NO_NUL } : out;
}

/** A zod schema as the JSON Schema (2020-12, the dialect of OpenAPI 3.1) of what a client sends. */
function jsonSchema(schema: z.ZodType): JsonSchema {
  const out = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete out.$schema;
  return withNoNul(out) as JsonSchema;
}

/** `/v1/agents/:id` → `/v1/agents/{id}` */
export const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const pathParams = (path: string) => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);

function operationId(route: Pick<Route, 'method' | 'path'>): string {
  const words = route.path
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1));
  return route.method + words.join('');
}

function queryParameters(query: z.ZodObject): object[] {
  const schema = jsonSchema(query) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, s]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
    schema: s,
  }));
}

const TAGS: Record<string, string> = {
  Operations: 'Health, readiness, metrics and this reference: no key needed',
  Authorization: 'Spend decisions and the `gca_` tokens that prove them',
  Approvals: 'Held requests and their resolution by a reviewer',
  Agents: 'The spenders that ask before spending',
  Mandates: 'AP2 Payment Mandates: issued to an agent within its policy, closed by the agent\'s key, verified and counted here',
  Policies: 'Budgets, vendor and category rules and approval thresholds',
  'Audit log': 'The append-only, hash-chained record of every change',
  'API keys': 'Bearer keys: roles, modes and revocation',
  Webhooks: 'Signed event deliveries, their endpoints and events',
  Usage: 'Billable checks and overage per month',
  'Quick start': 'The short surface: unprefixed paths, decimal USD amounts, vault tokens',
  Rails: 'Rails that ask first: a card program asks this service before it approves a card authorization',
};

const ref = (kind: 'schemas' | 'headers' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Reusable headers, as the code sends them (src/http/request-id.ts, rate-limit.ts, idempotency.ts, routes/audit-logs.ts). */
const HEADERS = {
  RequestId: { description: 'The request id (echoed when the client sent a well-formed X-Request-Id); quote it when reporting a problem', required: true, schema: { type: 'string' } },
  RateLimitLimit: { description: "Requests allowed per minute for the key's account and mode (or the client address when unauthenticated)", schema: { type: 'integer', minimum: 0 } },
  RateLimitRemaining: { description: 'Requests left in the current minute', schema: { type: 'integer', minimum: 0 } },
  RateLimitReset: { description: 'Whole seconds until the window resets', schema: { type: 'integer', minimum: 0 } },
  RetryAfter: { description: 'Whole seconds to wait before retrying (the same number as X-RateLimit-Reset)', required: true, schema: { type: 'integer', minimum: 0 } },
  RetryAfterUnavailable: { description: `Whole seconds to wait before retrying (${SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS}): the dependency is looked at again within that`, required: true, schema: { type: 'integer', minimum: 1 } },
  IdempotentReplayed: { description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
  NextCursor: { description: 'CSV answers only: the cursor of the next page, absent on the last page', schema: { type: 'string' } },
  CacheControl: { description: 'How long a cache may keep the answer (`public, max-age=N`); a readiness answer of 503 is `no-store`', required: true, schema: { type: 'string' } },
  ETag: { description: 'Strong validator of the document: send it back in If-None-Match to get `304 Not Modified` while it has not changed', required: true, schema: { type: 'string' } },
} as const;

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': ref('headers', 'RateLimitLimit'),
  'X-RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
  'X-RateLimit-Reset': ref('headers', 'RateLimitReset'),
};

/** Error answers shared by operations; each carries the error envelope. */
const ERROR_RESPONSES: Record<string, { status: string; description: string; headers?: Record<string, object> }> = {
  BadRequest: { status: '400', description: '`invalid_request`: a missing or malformed field, query parameter or body (`param` names it)' },
  Unauthorized: {
    status: '401',
    description:
      '`unauthorized`: missing, malformed, unknown or revoked key. Requests of a credential bound to one agent (an agent key; a vault token on quick-start authorize) also: `signature_required`, `signature_invalid`, `signature_key_unknown`, `signature_expired`, `signature_replayed` (see "Signed requests")',
  },
  Forbidden: { status: '403', description: "`forbidden`: the key's role or the account's plan does not allow it (authorize: also `agent_frozen`, `agent_deactivated`)" },
  NotFound: { status: '404', description: '`not_found`: no such object in this account and mode' },
  Conflict: { status: '409', description: '`conflict`: the object is not in a state that allows it, or the Idempotency-Key was used with another request' },
  PayloadTooLarge: { status: '413', description: '`invalid_request`: the body is over 64 KiB (`param` `body`)' },
  TooManyRequests: { status: '429', description: "`rate_limited`: over the per-minute limit", headers: { 'Retry-After': ref('headers', 'RetryAfter') } },
  ServiceUnavailable: {
    status: '503',
    description:
      '`service_unavailable`: a dependency the call needs (the workflow engine) is down or did not answer within 10 s; on a spend request (authorize), the service is overloaded and shed it before deciding anything (MAX_QUEUE_MS). Retry after `Retry-After` seconds',
    headers: { 'Retry-After': ref('headers', 'RetryAfterUnavailable') },
  },
};

const isPost = (route: Route) => route.method === 'post';

/**
 * Operations a credential bound to one agent calls (DECISIONS §19): every operation an agent key
 * may call, and quick-start authorize, whose vault token names an agent. The gate itself runs on
 * every path of an agent key (src/http/signature-gate.ts); these are the ones where it can pass.
 */
const signable = (route: Route) => route.roles !== 'public' && (route.roles.includes('agent') || (route.method === 'post' && route.path === '/authorize'));

/** The RFC 9421 request headers of a signed request (docs/api.md, "Signed requests (RFC 9421)"). */
const SIGNATURE_PARAMETERS = [
  {
    name: 'Signature-Input',
    in: 'header',
    required: false,
    description:
      'RFC 9421 signature parameters, for requests of an agent key or a vault token: a member tagged `web-bot-auth` with `created`, `expires` (at most 300 s later), `keyid` (the thumbprint of a key registered for the agent), `nonce` (16–256 characters), covering `@method`, `@authority` and `@path` (or `@target-uri`), `@query` with a query, `content-digest` with a body. Required when the agent\'s policy has `require_signed_requests`; a signature that is sent is always verified (401 `signature_required`, `signature_invalid`, `signature_key_unknown`, `signature_expired`, `signature_replayed`)',
    schema: { type: 'string' },
  },
  { name: 'Signature', in: 'header', required: false, description: 'RFC 9421 signatures: for each label of `Signature-Input`, a byte sequence', schema: { type: 'string' } },
  {
    name: 'Signature-Agent',
    in: 'header',
    required: false,
    description: 'An RFC 8941 dictionary naming, per label, the origin of the key directory a key was registered with; when sent, it must be covered (`"signature-agent";key="<label>"` or the whole field)',
    schema: { type: 'string' },
  },
  {
    name: 'Content-Digest',
    in: 'header',
    required: false,
    description: 'RFC 9530 digest (`sha-256` or `sha-512`) of the body bytes as sent (before `Content-Encoding` is undone); required, and covered, in a signed request with a body',
    schema: { type: 'string' },
  },
];
/**
 * Rate limiting covers every authenticated route (src/http/app.ts); public documents and probes are
 * outside every bucket, so a flood of bad keys never starves a rail's key fetch. A rail's endpoint
 * is limited per connection once its signature holds, and lists its 429 itself.
 */
const isRateLimited = (route: Route) => route.roles !== 'public';

/** The error answers of an operation: those every operation of its kind can give, plus its own. */
function errorResponses(route: Route): string[] {
  const own = new Set(route.errors ?? []);
  if (route.roles === 'public') {
    // A public route answers only what it lists (a rail's endpoint: 400, 413, 429).
    return [...(own.has(400) ? ['BadRequest'] : []), ...(own.has(413) ? ['PayloadTooLarge'] : []), ...(own.has(429) ? ['TooManyRequests'] : [])];
  }
  const hasBody = route.method === 'post' || route.method === 'patch';
  return [
    'BadRequest',
    'Unauthorized',
    ...(route.roles.length < 3 || own.has(403) ? ['Forbidden'] : []),
    ...(pathParams(route.path).length || own.has(404) ? ['NotFound'] : []),
    // Any POST can meet an Idempotency-Key reused with another request.
    ...(isPost(route) || own.has(409) ? ['Conflict'] : []),
    ...(hasBody ? ['PayloadTooLarge'] : []),
    'TooManyRequests',
    ...(own.has(503) ? ['ServiceUnavailable'] : []),
  ];
}

function operation(route: Route, nameOf: (schema: z.ZodType) => string, routes: readonly Route[]): object {
  const roleList = route.roles === 'public' ? [] : route.roles;
  const isPublic = route.roles === 'public';
  const limited = isRateLimited(route);
  const parameters: object[] = [
    ...pathParams(route.path).map((name) => ({ name, in: 'path', required: true, description: route.params?.[name], schema: { type: 'string', ...NO_NUL } })),
    ...(route.query ? queryParameters(route.query) : []),
    ...Object.entries(route.headers ?? {}).map(([name, h]) => ({ name, in: 'header', required: h.required, description: h.description, schema: h.schema })),
  ];
  if (!isPublic && isPost(route)) {
    parameters.push({
      name: IDEMPOTENCY_HEADER,
      in: 'header',
      required: false,
      description: 'Replays the first response of the same request within 24 h; 409 when reused with another request. 1–255 printable ASCII characters, no spaces',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    });
  }
  if (signable(route)) parameters.push(...SIGNATURE_PARAMETERS);
  const baseHeaders = { 'X-Request-Id': ref('headers', 'RequestId'), ...(limited ? RATE_LIMIT_HEADERS : {}) };
  const cacheHeaders = route.cacheable ? { 'Cache-Control': ref('headers', 'CacheControl'), ...(route.cacheable.etag ? { ETag: ref('headers', 'ETag') } : {}) } : {};
  const contentType = route.response.contentType ?? 'application/json';
  const content: Record<string, object> = {
    [contentType]: { schema: route.response.schema ? ref('schemas', nameOf(route.response.schema)) : { type: 'string' } },
    ...(route.response.csv ? { 'text/csv': { schema: { type: 'string', description: 'RFC 4180 CSV with a header row; cells that could start a formula are prefixed with `\'`' } } } : {}),
  };
  const links = Object.entries(route.links ?? {}).map(([name, l]) => {
    const [method, path] = l.to.split(' ') as [Route['method'], string];
    const target = routes.find((r) => r.method === method && r.path === path);
    if (!target) throw new Error(`link ${name} of ${route.method} ${route.path} goes to an undocumented operation ${l.to}`);
    return [name, { operationId: operationId(target), parameters: l.parameters, description: target.summary }] as const;
  });
  const responses: Record<string, object> = {
    [String(route.response.status)]: {
      description: route.response.description,
      headers: {
        ...baseHeaders,
        ...cacheHeaders,
        ...(!isPublic && isPost(route) ? { 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') } : {}),
        ...(route.response.csv ? { 'X-Next-Cursor': ref('headers', 'NextCursor') } : {}),
        ...route.responseHeaders,
      },
      content,
      ...(links.length ? { links: Object.fromEntries(links) } : {}),
    },
  };
  if (route.cacheable?.etag) {
    responses['304'] = { description: 'Not modified: the If-None-Match sent names the current ETag (no body)', headers: { ...baseHeaders, ...cacheHeaders } };
  }
  for (const name of errorResponses(route)) responses[ERROR_RESPONSES[name]!.status] = ref('responses', name);
  // Readiness answers its own object, not the error envelope, when the database is down.
  if (route.path === '/readyz') {
    responses['503'] = { description: 'Not ready: the database does not answer', headers: { ...baseHeaders, ...cacheHeaders }, content: { 'application/json': { schema: ref('schemas', 'Readiness') } } };
  }
  responses.default = { description: 'Any other error (`internal_error` for a bug, with a generic message)', headers: baseHeaders, content: { 'application/json': { schema: ref('schemas', 'Error') } } };

  const roles = isPublic ? 'Public: no key needed.' : `Roles: ${roleList.join(', ')}.`;
  return {
    operationId: operationId(route),
    tags: [route.tag],
    summary: route.summary,
    description: [route.description, roles].filter(Boolean).join('\n\n'),
    'x-roles': roleList,
    ...(isPublic ? { security: [] } : {}),
    ...(parameters.length ? { parameters } : {}),
    // A missing body reads as `{}` (src/http/validate.ts bodyObject): required only when `{}` is refused.
    ...(route.body ? { requestBody: { required: !route.body.safeParse({}).success, content: { 'application/json': { schema: jsonSchema(route.body) } } } } : {}),
    responses,
  };
}

/** One webhook per event type: what a subscribed endpoint receives (src/webhooks/signature.ts, activities/webhook-delivery.ts). */
function webhook(type: EventType): object {
  const header = (name: string, description: string, schema: object) => ({ name, in: 'header', required: true, description, schema });
  return {
    post: {
      operationId: `webhook${webhookComponentName(type)}`,
      tags: ['Webhooks'],
      summary: `Event \`${type}\``,
      description: `${eventSummary(type)}. Sent as a POST with a JSON body to every enabled endpoint subscribed to \`${type}\` (or \`*\`). Verify \`${SIGNATURE_HEADER}\` over the raw body before parsing it; dedupe by \`id\` (deliveries are at least once, in no guaranteed order).`,
      security: [],
      parameters: [
        header(SIGNATURE_HEADER, '`sha256=<hex>`: HMAC-SHA256 of the raw request body (UTF-8) with the endpoint secret (`whsec_…`), hex-encoded. Compare in constant time.', { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' }),
        {
          name: PREVIOUS_SIGNATURE_HEADER,
          in: 'header',
          required: false,
          description: `Only during the grace period of a secret rotation (\`previous_secret_expires_in\`): the same as \`${SIGNATURE_HEADER}\`, computed with the previous secret, so a receiver that has not switched yet still verifies the delivery.`,
          schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
        },
        header(EVENT_HEADER, 'The event type', { type: 'string', const: type }),
        header(DELIVERY_HEADER, 'The event id (`evt_…`), the same on every attempt and redelivery', { type: 'string', pattern: '^evt_[0-9A-Za-z]+$' }),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', webhookComponentName(type)) } } },
      responses: {
        '2XX': { description: 'Received: any 2XX answer within 10 s ends the delivery' },
        '4XX': { description: 'Refused: the attempt failed and is retried with exponential backoff for up to 3 days (a `Retry-After` on 429 is honoured)' },
        default: { description: 'Any other answer, or none within 10 s, fails the attempt; it is retried as for 4XX' },
      },
    },
  };
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; [key: string]: unknown };
  paths: Record<string, Record<string, any>>;
  components: Record<string, unknown>;
  webhooks: Record<string, unknown>;
  [key: string]: unknown;
}

/** The OpenAPI 3.1 document of the routes, generated from the zod schemas the handlers parse with and answer through. */
export function buildOpenApiDocument(routes: readonly Route[] = ROUTES): OpenApiDocument {
  const { schemas, nameOf } = componentSchemas();
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const item = (paths[toOpenApiPath(route.path)] ??= {});
    item[route.method] = operation(route, nameOf, routes);
  }
  const tags = [...new Set(routes.map((r) => r.tag))].map((name) => {
    const description = TAGS[name];
    if (!description) throw new Error(`tag ${name} has no description in openapi.ts TAGS`);
    return { name, description };
  });
  const usedResponses = new Set(routes.flatMap(errorResponses));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Spend Authorization API',
      version: API_VERSION,
      description:
        'Pre-spend authorization for AI agents: approve, deny or hold a spend request against a policy. ' +
        'Amounts are integers in minor units. Errors use the `Error` envelope. Every POST under /v1 accepts an `Idempotency-Key`. ' +
        'Response objects are described exactly (`additionalProperties: false`); clients should still ignore fields they do not know, since new fields may be added within v1.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    tags,
    paths,
    webhooks: Object.fromEntries(EVENT_TYPES.map((type) => [type, webhook(type)])),
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `gc_test_…` (test mode) or `gc_live_…` (live mode)' },
      },
      headers: HEADERS,
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES)
          .filter(([name]) => usedResponses.has(name))
          .map(([name, r]) => [
            name,
            {
              description: r.description,
              headers: { 'X-Request-Id': ref('headers', 'RequestId'), ...RATE_LIMIT_HEADERS, ...r.headers },
              content: { 'application/json': { schema: ref('schemas', 'Error') } },
            },
          ]),
      ),
      schemas,
    },
  };
}

let cached: OpenApiDocument | undefined;
/** Built once per process: the routes do not change while it runs. */
export const openApiDocument = (): OpenApiDocument => (cached ??= buildOpenApiDocument());
