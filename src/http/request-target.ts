import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { AppError } from '../kernel/errors.js';

/** `scheme://authority` at the start of an absolute-form request target (RFC 9112 §3.2.2). */
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i;

const OTHER_AUTHORITY = Symbol('other authority');
type Marked = IncomingMessage & { [OTHER_AUTHORITY]?: true };

/**
 * Before the app routes a request: an absolute-form target (`POST http://host/authorize`) becomes
 * the origin-form it stands for, so the router and every rule see one spelling of the path
 * (DECISIONS §19). One whose authority is not the `Host` is marked, and refused by
 * `refuseOtherAuthority`. Run by the server ahead of Express, which would otherwise route the
 * absolute form itself (and strip a mount path from it wrongly).
 */
export function toOriginForm(req: IncomingMessage): void {
  const url = req.url ?? '/';
  const m = ABSOLUTE_FORM.exec(url);
  if (!m) return;
  if (m[1]!.toLowerCase() !== (req.headers.host ?? '').toLowerCase()) (req as Marked)[OTHER_AUTHORITY] = true;
  const rest = url.slice(m[0].length);
  req.url = rest.startsWith('/') ? rest : `/${rest}`;
}

/** 400 for a target whose authority was not the `Host` (and the same rewrite for an app served without the server). */
export const refuseOtherAuthority: RequestHandler = (req, _res, next) => {
  if (ABSOLUTE_FORM.test(req.url)) {
    toOriginForm(req);
    req.originalUrl = req.url;
  }
  if ((req as Marked)[OTHER_AUTHORITY]) throw new AppError('invalid_request', "The request target's authority is not the Host header.", 'Host');
  next();
};
