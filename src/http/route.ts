import type { AgentKeyDeps } from '../agent-keys/agent-key-deps.js';
import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import type { AgentHooks } from '../agents/agents.service.js';
import type { resolveApproval } from '../approvals/approvals.service.js';
import type { AuthorizationDeps } from '../authorization/authorization.deps.js';
import type { MandateDeps } from '../mandates/mandate-deps.js';
import { requireRole, type Caller } from '../kernel/caller.js';
import type { Db, DbOrTrx, Role } from '../db/database.js';
import type { Metrics } from '../observability/metrics.js';
import type { RailEndpoint } from '../rail-connections/rail-endpoint.js';
import type { RailConnectionDeps } from '../rail-connections/rail-connections.service.js';
import type { WebhookDeps } from '../webhooks/webhooks.service.js';
import { callerOf } from './context.js';
import type { IdempotencyHandle } from '../kernel/idempotency.js';
import type { OpenApiDocument } from './openapi.js';
import { bodyObject, parse } from './validate.js';
import type { RateLimiter } from './rate-limit.js';
import { RAW_BODY } from './body.js';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

/** `/v1/approvals/:decision_id/approve` → `'decision_id'` */
export type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<Rest>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** What the handlers need, built once by the app (src/http/app.ts). */
export interface RouteDeps {
  db: Db;
  /** Authorize, decisions, tokens and the quick-start surface. */
  authorization: AuthorizationDeps;
  approvals: Parameters<typeof resolveApproval>[0];
  webhooks: WebhookDeps;
  agentHooks: AgentHooks;
  /** Told when a key is revoked, so any cache of keys can drop it at once. */
  onKeyRevoked?: ((keyHash: string) => void) | undefined;
  /** Told when what a cached caller carries may have changed (a policy's `require_signed_requests`, an agent's policy). */
  onCredentialsChanged?: (() => void) | undefined;
  /** Agents' signing keys and their directories (DECISIONS §19). */
  agentKeys: AgentKeyDeps;
  /** AP2 mandates (DECISIONS §20); absent in an app built without mandate keys, whose mandate routes answer 503. */
  mandates?: MandateDeps | undefined;
  metrics: Metrics;
  /** The workflow engine's last known state, for /readyz. */
  engine: { current(): Promise<'up' | 'down' | 'unknown'> };
  /** The document of these very routes (src/http/openapi.ts). */
  openApi: () => OpenApiDocument;
  /** The folder holding dashboard/index.html; undefined when the package has none. */
  dashboardDir: string | undefined;
  /** `/v1/rail-connections`; `publicBaseUrl` (PUBLIC_BASE_URL) is where their endpoints are, else the address a request came to. */
  railConnections: RailConnectionDeps & { publicBaseUrl?: string | undefined };
  /** The rails that ask first this process serves (src/rails/<rail>/, handed in by the process), and their per-connection rate limit. */
  rails: { stripeIssuing: RailEndpoint | undefined; limit: RateLimiter['perRailConnection'] };
}

/** One request, as a handler sees it: its input already parsed by the route's schemas. */
export interface Call<Body, Query, Path extends string> {
  readonly deps: RouteDeps;
  /** The authenticated caller (routes with roles only; a public route that reads it answers 401). */
  readonly caller: Caller;
  readonly body: Body;
  readonly query: Query;
  readonly params: Record<ParamNames<Path>, string>;
  /** Present on a POST that carries an Idempotency-Key (src/http/idempotency.ts). */
  readonly idempotency: IdempotencyHandle<DbOrTrx> | undefined;
  readonly req: Request;
  readonly res: Response;
}

class Sent {
  private readonly sent = true;
}
/** A handler's answer when it wrote the response itself (CSV, HTML, files, another status). */
export const SENT: Sent = new Sent();

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

interface Success<S extends z.ZodType | undefined> {
  status: number;
  description: string;
  /** A response object schema (one of the OpenAPI document's components); none for non-JSON answers. */
  schema?: S;
  /** The media type of a non-JSON answer. */
  contentType?: string;
  /** Also answers RFC 4180 CSV for `Accept: text/csv`. */
  csv?: boolean;
}

/** A header as the OpenAPI document describes it. */
export interface HeaderDoc {
  description: string;
  required: boolean;
  schema: Record<string, unknown>;
}

interface Declaration<Path extends string, B extends z.ZodType | undefined, Q extends z.ZodObject | undefined, S extends z.ZodType | undefined> {
  method: HttpMethod;
  /** Written the Express way (`/v1/agents/:id`); the document turns `:id` into `{id}`. */
  path: Path;
  summary: string;
  /** Groups operations in the document and on /docs. */
  tag: string;
  description?: string;
  /** Roles whose keys may call it, checked before anything else is; `public` needs no key at all. */
  roles: readonly Role[] | 'public';
  /** The JSON body, parsed (a missing body reads as `{}`) before the handler runs. */
  body?: B;
  /** The query string, parsed before the handler runs. */
  query?: Q;
  /** The status, meaning and schema of a successful answer; the handler's return value is sent with it. */
  response: Success<S>;
  /**
   * Error statuses this operation can answer beyond the ones every operation of its kind can (see
   * openapi.ts); a public route lists all of its own (a rail's endpoint: 400, 413, 429).
   */
  errors?: readonly (400 | 403 | 404 | 409 | 413 | 429 | 503)[];
  /**
   * The handler reads the body's bytes as sent (`req.body`, a Buffer; `res.locals.arrivedAt`): a
   * rail's signature is over them. `body` then only documents it.
   */
  rawBody?: true;
  /** Request headers the operation reads (beyond the bearer key and Idempotency-Key), by name. */
  headers?: Record<string, HeaderDoc>;
  /** Headers of the successful answer (beyond the request id and rate-limit headers), by name. */
  responseHeaders?: Record<string, HeaderDoc>;
  /** Operations a client can call next with a value of this answer (OpenAPI links): name → target and parameters. */
  links?: Record<string, { to: `${HttpMethod} ${string}`; parameters: Record<string, string> }>;
  /**
   * A public document or probe, answered with Cache-Control (src/http/public-document.ts);
   * `etag`: also an ETag, and 304 for a matching If-None-Match. Documented from this.
   */
  cacheable?: { etag: boolean };
  /** Returns the body of the successful answer, or SENT when it answered itself. */
  handler: (call: Call<Output<B>, Output<Q>, Path>) => Promise<Output<S> | Sent> | Output<S> | Sent;
}

/** Path parameter descriptions, by name: required exactly when the path has parameters. */
type ParamDocs<Path extends string> = [ParamNames<Path>] extends [never] ? { params?: undefined } : { params: Record<ParamNames<Path>, string> };

/** A route as declared: what the app mounts and the OpenAPI document describes. */
export type Route = Omit<Declaration<string, z.ZodType | undefined, z.ZodObject | undefined, z.ZodType | undefined>, 'handler'> & {
  params?: Record<string, string> | undefined;
  handler: (call: Call<unknown, unknown, string>) => unknown;
};

/** Declares one route; the types tie the handler to the schemas it is documented with. */
export function route<
  const Path extends string,
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  S extends z.ZodType | undefined = undefined,
>(declaration: Declaration<Path, B, Q, S> & ParamDocs<Path>): Route {
  return declaration as unknown as Route;
}

export const LIST_PAGE = 'A list: `{object: "list", data, has_more, next_cursor}`, newest first.';

/** The successful answer of a list operation. */
export const list = <S extends z.ZodType>(schema: S) => ({ status: 200, description: LIST_PAGE, schema });

/** A link that passes the answer's `field` as the `param` path parameter of `to`. */
export const link = (to: `${HttpMethod} ${string}`, param: string, field: string) => ({ to, parameters: { [param]: `$response.body#/${field}` } });

/**
 * Mounts `routes` on `router`: the role check, then the
 * query and the body parsed by the declared schemas, then the handler, whose answer is sent with
 * the declared status. `prefix` is where the router itself is mounted. Routes are matched in the
 * order given, so a fixed path goes before a parameter path of the same method.
 */
export function mountRoutes(router: Router, routes: readonly Route[], deps: RouteDeps, opts: { prefix?: string; before?: (route: Route) => RequestHandler[] } = {}): void {
  const prefix = opts.prefix ?? '';
  for (const r of routes) {
    if (!r.path.startsWith(`${prefix}/`)) throw new Error(`${r.method} ${r.path} is not under ${prefix}`);
    router[r.method](r.path.slice(prefix.length), ...(opts.before?.(r) ?? []), ...(r.rawBody ? RAW_BODY : []), async (req: Request, res: Response) => {
      if (r.roles !== 'public') requireRole(callerOf(req), r.roles);
      const query = r.query ? parse(r.query, req.query) : undefined;
      const body = r.body && !r.rawBody ? parse(r.body, bodyObject(req.body)) : undefined;
      const answer = await r.handler({
        deps,
        get caller() {
          return callerOf(req);
        },
        body,
        query,
        params: req.params as Record<string, string>,
        idempotency: req.idempotency,
        req,
        res,
      });
      if (answer !== SENT) res.status(r.response.status).json(answer);
    });
  }
}

/** The declared route a request is for (method and concrete path), if any. */
export function createRouteFinder(routes: readonly Route[]): (method: string, path: string) => Route | undefined {
  const compiled = routes.map((r) => {
    const source = r.path
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    return { method: r.method.toUpperCase(), route: r, regexp: new RegExp(`^${source}$`) };
  });
  return (method, path) => {
    const m = method === 'HEAD' ? 'GET' : method;
    return compiled.find((c) => c.method === m && c.regexp.test(path))?.route;
  };
}

/** Matches a request against the declared routes, giving its pattern: the route label of metrics and logs. */
export function createRouteMatcher(routes: readonly Route[]): (method: string, path: string) => string | undefined {
  const find = createRouteFinder(routes);
  return (method, path) => find(method, path)?.path;
}
