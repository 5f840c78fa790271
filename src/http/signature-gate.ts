import type { Request, RequestHandler } from 'express';
import type { Db } from '../db/database.js';
import type { Caller } from '../kernel/caller.js';
import { verifyRequestSignature, type RequestSignatureDeps, type SignatureSubject } from '../agent-keys/request-signature.service.js';
import type { SignedMessage } from '../agent-keys/request-signature.js';
import { findVaultSignatureSubject } from '../quickstart/vaults.repository.js';
import { hashVaultToken, isVaultTokenShaped } from '../quickstart/vault-token.js';
import { readJsonBody } from './body.js';
import { callerOf } from './context.js';
import type { Route } from './route.js';

export interface SignatureGateDeps {
  db: Db;
  verify: RequestSignatureDeps;
  /** PUBLIC_BASE_URL: its scheme and authority are the ones a signature covers; absent: the request's own. */
  publicBaseUrl?: string | undefined;
}

/** `scheme://authority` of PUBLIC_BASE_URL (its path, if any, is not the request's: @path is as received). */
function originOf(publicBaseUrl: string | undefined): string | undefined {
  if (!publicBaseUrl) return undefined;
  try {
    return new URL(publicBaseUrl).origin;
  } catch {
    return undefined;
  }
}

/** The request as its signature covers it: what the feature needs, nothing of Express. */
export function signedMessage(req: Request, publicOrigin: string | undefined): SignedMessage {
  const raw = req.originalUrl;
  // An absolute-form request target (`http://host/path`): the path and query are what follows the authority.
  const absolute = /^https?:\/\/[^/?#]*/i.exec(raw);
  const target = absolute ? raw.slice(absolute[0].length) || '/' : raw;
  const fields: { name: string; value: string }[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) fields.push({ name: req.rawHeaders[i]!.toLowerCase(), value: req.rawHeaders[i + 1]! });
  return {
    method: req.method,
    origin: publicOrigin ?? `${req.protocol}://${req.headers.host ?? ''}`,
    target,
    fields,
    body: req.rawBody ?? Buffer.alloc(0),
  };
}

/** The quick-start `POST /authorize`, known by the route the router matched (never by the path's spelling). */
const isQuickstartAuthorize = (route: Route | undefined) => route?.method === 'post' && route.path === '/authorize';

/**
 * Quick-start `POST /authorize`: the vault token in the body names the agent. Read tolerantly: a
 * body that does not parse, or no usable vault, means nothing to check here, and the route answers
 * 400 or 401 as it does for any such request.
 */
async function vaultSubject(db: Db, caller: Caller, req: Request): Promise<SignatureSubject | undefined> {
  let token: unknown;
  try {
    const body = Buffer.isBuffer(req.body) ? readJsonBody(req.body, undefined) : undefined;
    token = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).token : undefined;
  } catch {
    return undefined;
  }
  if (typeof token !== 'string' || !isVaultTokenShaped(token)) return undefined;
  const vault = await findVaultSignatureSubject(db, caller, hashVaultToken(token));
  return vault && { agentId: vault.agent_id, required: vault.require_signed_requests };
}

/**
 * DECISIONS §19 for requests made with a credential bound to one agent: an agent key on every
 * path, a `dlt_` vault token on quick-start `POST /authorize`. After the bearer key and the body's
 * bytes, before validation, idempotency and any effect. Admin and reviewer keys are never checked.
 * Mounted on each route (`route`, the one the router matched) and, with none, ahead of the 404 of
 * a path no route takes: an agent key that must sign is refused there too.
 * The cached Caller is shared between requests: a verified signature goes on a copy.
 */
export function signatureGate(deps: SignatureGateDeps): (route: Route | undefined) => RequestHandler {
  const publicOrigin = originOf(deps.publicBaseUrl);
  return (route) => async (req, _res, next) => {
    const caller = callerOf(req);
    const subject: SignatureSubject | undefined =
      caller.role === 'agent' && caller.agentId !== null
        ? { agentId: caller.agentId, required: caller.signedRequestsRequired === true }
        : caller.role === 'admin' && isQuickstartAuthorize(route)
          ? await vaultSubject(deps.db, caller, req)
          : undefined;
    if (!subject) return next();
    const signature = await verifyRequestSignature(deps.verify, caller, subject, signedMessage(req, publicOrigin));
    if (signature) req.caller = { ...caller, signature };
    next();
  };
}
