import { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import { IDEMPOTENCY_HEADER } from './idempotency.js';
import { createRouteFinder, ROUTE_DOCS, type RouteDoc } from './route-docs.js';

type JsonSchema = Record<string, unknown>;

/** What each error code means; typed so a new code cannot be left out of the document. */
const ERROR_CODES: Record<ErrorCode, string> = {
  invalid_request: '400 (413 for a body over 64 KiB): a missing or malformed field, query parameter or body',
  unauthorized: '401: missing, malformed, unknown or revoked key',
  forbidden: "403: the key's role or the account's plan does not allow it",
  agent_frozen: '403: authorize for a frozen agent',
  agent_deactivated: '403: authorize for a deactivated agent',
  not_found: '404: unknown route or id (including another account’s or mode’s)',
  conflict: '409: state conflict, or an Idempotency-Key reused with another request',
  rate_limited: "429: over the plan's per-minute limit",
  service_unavailable: '503: a dependency the call needs is down',
  internal_error: '500: a bug; the message is generic',
};

const errorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
      param: z.string().optional().describe('The offending parameter, dotted for nested fields'),
      request_id: z.string().optional().describe('Equal to the X-Request-Id response header'),
    }),
  })
  .describe(`The error envelope. Codes: ${Object.entries(ERROR_CODES).map(([code, when]) => `\`${code}\` ${when}`).join('; ')}.`);

const listEnvelopeSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(z.record(z.string(), z.unknown())),
    has_more: z.boolean(),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page'),
  })
  .describe('Every list: newest first, keyset-paginated.');

/** A zod schema as the JSON Schema (2020-12, the dialect of OpenAPI 3.1) of what a client sends. */
function jsonSchema(schema: z.ZodType): JsonSchema {
  const out = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete out.$schema;
  return out;
}

/** `/v1/agents/:id` → `/v1/agents/{id}` */
export const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const pathParams = (path: string) => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);

function operationId(route: RouteDoc): string {
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

function operation(route: RouteDoc): object {
  const roleList = route.roles === 'public' ? [] : route.roles;
  const isPublic = route.roles === 'public';
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ref('Error') } } });
  const parameters: object[] = [
    ...pathParams(route.path).map((name) => ({ name, in: 'path', required: true, description: route.params?.[name], schema: { type: 'string' } })),
    ...(route.query ? queryParameters(route.query) : []),
  ];
  if (!isPublic && route.method === 'post') {
    parameters.push({
      name: IDEMPOTENCY_HEADER,
      in: 'header',
      required: false,
      description: 'Replays the first response of the same request within 24 h; 409 when reused with another request',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  const contentType = route.response.contentType ?? 'application/json';
  const successSchema = contentType !== 'application/json' ? { type: 'string' } : route.response.list ? ref('List') : { type: 'object' };
  const responses: Record<string, object> = {
    [String(route.response.status)]: {
      description: route.response.description,
      headers: { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } },
      content: { [contentType]: { schema: successSchema } },
    },
  };
  if (route.body || route.query) responses['400'] = errorResponse('Invalid request');
  if (!isPublic) {
    responses['401'] = errorResponse('Missing, unknown or revoked key');
    if (roleList.length < 3) responses['403'] = errorResponse(`Allowed roles: ${roleList.join(', ')}`);
  }
  if (pathParams(route.path).length) responses['404'] = errorResponse('No such object (in this account and mode)');
  responses.default = errorResponse('Any other error, in the error envelope');

  const roles = isPublic ? 'Public: no key needed.' : `Roles: ${roleList.join(', ')}.`;
  return {
    operationId: operationId(route),
    tags: [route.tag],
    summary: route.summary,
    description: [route.description, roles].filter(Boolean).join('\n\n'),
    'x-roles': roleList,
    ...(isPublic ? { security: [] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body) } } } } : {}),
    responses,
  };
}

export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, any>>;
  [key: string]: unknown;
}

/** The OpenAPI 3.1 document of the routes, generated from the zod schemas the handlers parse with. */
export function buildOpenApiDocument(routes: readonly RouteDoc[] = ROUTE_DOCS): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const item = (paths[toOpenApiPath(route.path)] ??= {});
    item[route.method] = operation(route);
  }
  const tags = [...new Set(routes.map((r) => r.tag))].map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Spend Authorization API',
      version: 'v1',
      description:
        'Pre-spend authorization for AI agents: approve, deny or hold a spend request against a policy. ' +
        'Amounts are integers in minor units. Errors use the `Error` envelope. Every POST under /v1 accepts an `Idempotency-Key`.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    tags,
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `gc_test_…` (test mode) or `gc_live_…` (live mode)' },
      },
      headers: {
        RequestId: { description: 'The request id (echoed when the client sent a well-formed X-Request-Id)', schema: { type: 'string' } },
      },
      schemas: { Error: jsonSchema(errorEnvelopeSchema), List: jsonSchema(listEnvelopeSchema) },
    },
  };
}

let cached: OpenApiDocument | undefined;
/** Built once per process: the routes do not change while it runs. */
export const openApiDocument = (): OpenApiDocument => (cached ??= buildOpenApiDocument());

/** Matches a request against the documented routes, giving its pattern: the route label of metrics and logs. */
export function createRouteMatcher(routes: readonly RouteDoc[] = ROUTE_DOCS): (method: string, path: string) => string | undefined {
  const find = createRouteFinder(routes);
  return (method, path) => find(method, path)?.path;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const inlineCode = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');

/** A self-contained reference page, rendered on the server from the document: no script, no CDN. */
export function renderDocsPage(doc: OpenApiDocument = openApiDocument()): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const params = (op.parameters ?? []) as Array<{ name: string; in: string; required: boolean; description?: string; schema: JsonSchema }>;
      const paramRows = params
        .map(
          (p) =>
            `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${escapeHtml(JSON.stringify(p.schema))}</code>${p.description ? `<br>${inlineCode(p.description)}` : ''}</td></tr>`,
        )
        .join('');
      const body = op.requestBody?.content?.['application/json']?.schema;
      const responses = Object.entries(op.responses as Record<string, { description: string }>)
        .map(([status, r]) => `<li><b>${escapeHtml(status)}</b> ${inlineCode(r.description)}</li>`)
        .join('');
      const html = `<section class="op" id="${escapeHtml(op.operationId)}">
<h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p>${inlineCode(op.summary)}</p>
${op.description ? `<p class="d">${inlineCode(op.description).replace(/\n\n/g, '<br>')}</p>` : ''}
${paramRows ? `<table><tr><th>parameter</th><th>in</th><th>required</th><th>schema</th></tr>${paramRows}</table>` : ''}
${body ? `<details><summary>Request body (JSON Schema)</summary><pre>${escapeHtml(JSON.stringify(body, null, 2))}</pre></details>` : ''}
<ul class="r">${responses}</ul>
</section>`;
      const tag = (op.tags?.[0] as string | undefined) ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push(html);
    }
  }
  const toc = [...byTag.keys()].map((t) => `<a href="#tag-${escapeHtml(t.replace(/\W+/g, '-'))}">${escapeHtml(t)}</a>`).join(' · ');
  const sections = [...byTag.entries()].map(([t, ops]) => `<h2 id="tag-${escapeHtml(t.replace(/\W+/g, '-'))}">${escapeHtml(t)}</h2>\n${ops.join('\n')}`).join('\n');
  const info = doc.info as { title: string; version: string; description: string };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)} — API reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
code,pre{font:13px ui-monospace,monospace;background:#f3f3f3;border-radius:3px;padding:0 .2em}
pre{padding:.6em;overflow:auto}.op{border-top:1px solid #ddd;padding:.4em 0}
h3{font-size:1rem;margin:.6em 0 .2em}.m{display:inline-block;min-width:4em;text-align:center;color:#fff;border-radius:3px;font-size:.8rem;padding:.1em .3em}
.get{background:#2f7d32}.post{background:#1565c0}.patch{background:#8e5b00}.delete{background:#b71c1c}
table{border-collapse:collapse;font-size:.9rem}td,th{border:1px solid #ddd;padding:.2em .4em;text-align:left;vertical-align:top}.d{color:#444}
</style></head><body>
<h1>${escapeHtml(info.title)} <small>${escapeHtml(info.version)}</small></h1>
<p>${inlineCode(info.description)}</p>
<p>Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI ${escapeHtml(doc.openapi)}). Authenticate with <code>Authorization: Bearer gc_test_…</code>.</p>
<nav>${toc}</nav>
${sections}
</body></html>
`;
}
