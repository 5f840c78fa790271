/**
 * Every response an API test receives through the test context (test/support/context.ts), and
 * every webhook delivery a test receiver gets (test/support/receiver.ts), is checked against the
 * served OpenAPI document: the status must be documented for the operation,
 * the body must match its schema, and the headers it marks required must be there. A mismatch is
 * recorded, and the setup file (openapi-conformance.setup.ts) fails the test that received it.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument, toOpenApiPath, type OpenApiDocument } from '../../src/http/openapi.js';
import { createRouteFinder } from '../../src/http/route.js';
import { ROUTES } from '../../src/http/routes/index.js';

// ajv-formats is CommonJS: its default export arrives as the module object under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;

interface Checked {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

interface ResponseObject {
  $ref?: string;
  description?: string;
  headers?: Record<string, { $ref?: string; required?: boolean }>;
  content?: Record<string, { schema: Record<string, unknown> }>;
}

const DOC_ID = 'openapi.json';

let state: { doc: OpenApiDocument; ajv: Ajv2020; find: ReturnType<typeof createRouteFinder>; validators: Map<string, ValidateFunction> } | undefined;

function init() {
  if (state) return state;
  const doc = buildOpenApiDocument();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // Every reference in a response schema points into components.
  ajv.addSchema({ $id: DOC_ID, components: doc.components }, DOC_ID);
  state = { doc, ajv, find: createRouteFinder(ROUTES), validators: new Map() };
  return state;
}

/**
 * Builds the document and compiles its schemas ahead of the first response (the test context
 * does it at start), so the first checked request of a test that times its requests is not slower.
 */
export function warmUp(): void {
  const s = init();
  for (const name of Object.keys((s.doc.components as { schemas: object }).schemas)) s.ajv.getSchema(`${DOC_ID}#/components/schemas/${name}`);
}

const resolve = <T extends { $ref?: string }>(doc: OpenApiDocument, node: T): T =>
  node.$ref ? (node.$ref.slice(2).split('/').reduce<any>((n, key) => n?.[key], doc) as T) : node;

let validated = 0;
let validatedHooks = 0;
const problems: string[] = [];

/**
 * How many responses and webhook deliveries were checked since the last call: a worker process runs
 * many test files one after another (isolate: false), and each file reports its own.
 */
export function takeValidatedCounts(): { responses: number; webhooks: number } {
  const counts = { responses: validated, webhooks: validatedHooks };
  validated = 0;
  validatedHooks = 0;
  return counts;
}

/** The mismatches seen since the last call. */
export const takeProblems = (): string[] => problems.splice(0);

/**
 * Checks one webhook delivery a test receiver got against the document's `webhooks`: the event
 * type it names must be documented, its body must match, and the documented headers be present.
 */
export function checkWebhook(headers: Record<string, string | string[] | undefined>, rawBody: string): void {
  const s = init();
  const type = headers['x-service-event'];
  const webhooks = (s.doc.webhooks ?? {}) as Record<string, { post: { parameters: { name: string; required: boolean }[]; requestBody: { content: Record<string, { schema: { $ref: string } }> } } }>;
  const where = `webhook ${String(type)}`;
  validatedHooks += 1;
  const hook = typeof type === 'string' ? webhooks[type] : undefined;
  if (!hook) {
    problems.push(`${where}: event type not documented in webhooks`);
    return;
  }
  for (const p of hook.post.parameters) {
    if (p.required && headers[p.name.toLowerCase()] === undefined) problems.push(`${where}: header ${p.name} missing`);
  }
  const key = `webhook ${type}`;
  let validate = s.validators.get(key);
  if (!validate) {
    validate = s.ajv.getSchema(`${DOC_ID}${hook.post.requestBody.content['application/json']!.schema.$ref}`)!;
    s.validators.set(key, validate);
  }
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    problems.push(`${where}: body is not JSON`);
    return;
  }
  if (!validate(body)) problems.push(`${where}: body does not match: ${(validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')}; body ${rawBody.slice(0, 300)}`);
}

/** A validator of one component schema of the document (`Agent`, `AgentFrozenWebhook`, …). */
export function componentValidator(name: string): ValidateFunction {
  return init().ajv.getSchema(`${DOC_ID}#/components/schemas/${name}`)!;
}

/** Checks one response of `method path`; responses of undocumented routes (the unknown-route 404) are not counted. */
export function checkResponse(method: string, path: string, res: Checked): void {
  const upper = method.toUpperCase();
  if (upper === 'HEAD' || upper === 'OPTIONS') return;
  const s = init();
  const pathname = new URL(path, 'http://x').pathname;
  const route = s.find(upper, pathname);
  if (!route) return;
  validated += 1;
  const op = s.doc.paths[toOpenApiPath(route.path)]![route.method];
  const where = `${upper} ${pathname} → ${res.status}`;
  const responses = op.responses as Record<string, ResponseObject>;
  // `default` stands for the 5XX answers only (internal errors); every 4XX must be listed.
  const documented = responses[String(res.status)] ?? responses[`${String(res.status)[0]}XX`] ?? (res.status >= 500 ? responses.default : undefined);
  if (!documented) {
    problems.push(`${where}: status not documented for ${route.method} ${route.path} (documented: ${Object.keys(responses).join(', ')}); body ${res.text.slice(0, 300)}`);
    return;
  }
  const response = resolve(s.doc, documented);
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    if (resolve(s.doc, header).required && !res.headers.has(name)) problems.push(`${where}: required header ${name} missing`);
  }
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (!contentType && res.text === '') return;
  const media = response.content?.[contentType];
  if (!media) {
    problems.push(`${where}: content type ${contentType || '(none)'} not documented (documented: ${Object.keys(response.content ?? {}).join(', ') || 'none'})`);
    return;
  }
  if (contentType !== 'application/json') return;
  const key = `${route.method} ${route.path} ${res.status} ${contentType}`;
  let validate = s.validators.get(key);
  if (!validate) {
    validate = media.schema.$ref ? s.ajv.getSchema(`${DOC_ID}${media.schema.$ref}`)! : s.ajv.compile(media.schema);
    s.validators.set(key, validate);
  }
  if (!validate(res.body)) {
    const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
    problems.push(`${where}: body does not match ${media.schema.$ref ?? 'the schema'}: ${errors.join('; ')}; body ${res.text.slice(0, 300)}`);
  }
}
