import type { AuthorizationDeps } from '../authorization/authorization.deps.js';
import type { EndpointConnection, RailConnectionCache } from './rail-connection-cache.js';

/** How an authorization request was answered, for /metrics: by an approval, a decision, a decline, the timeout answer, or a repeat. */
export type RailAnswerKind = 'matched' | 'approved' | 'declined' | 'timeout' | 'replayed';

/** What every rail that asks first gets from the process that serves it. */
export interface RailEnvironment {
  authz: AuthorizationDeps;
  /** Shared with `/v1/rail-connections` and fed by every process's deletions (rail-connection-cache.ts). */
  connections: RailConnectionCache;
  /** The whole decision's budget, from the request's arrival (RAIL_DECISION_DEADLINE_MS). */
  deadlineMs?: number | undefined;
  /** Counted in /metrics. */
  onAnswer?: (kind: RailAnswerKind) => void;
  /** Work that outlived its answer (a decision rolled back past the deadline, a timeout answer not recorded). */
  log?: (level: 'warn' | 'error', message: string, details: Record<string, unknown>) => void;
}

/**
 * The port of a rail that asks first (docs/architecture.md, "A new rail"): the HTTP adapter reads
 * the raw body and calls it; the rail's own adapter (src/rails/<rail>/) implements it; the process
 * hands one to the other. Neither adapter imports the other.
 */
export interface RailEndpoint<V extends { connection: EndpointConnection } = { connection: EndpointConnection }> {
  /** The request header that carries the rail's signature. */
  readonly signatureHeader: string;
  /** The connection, then the signature over the body's bytes, then the mode; throws a 400 naming the failed check. */
  authenticate(connectionId: string, rawBody: Buffer, signature: string | undefined): Promise<V>;
  /** The answer to a verified request: headers and the JSON body, given by `deadlineOf(arrivedAt)`. */
  answer(verified: V, arrivedAt: number): Promise<{ headers: Record<string, string>; body: Record<string, unknown> }>;
  /** When a request that arrived at `arrivedAt` (epoch ms) must be answered. */
  deadlineOf(arrivedAt: number): number;
}

/** Builds a rail's endpoint from what the process gives it. */
export type RailEndpointFactory = (env: RailEnvironment) => RailEndpoint<any>;
