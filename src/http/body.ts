import { isUtf8 } from 'node:buffer';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import express, { type Request, type RequestHandler } from 'express';
import getRawBody from 'raw-body';
import { AppError, invalid } from '../kernel/errors.js';
import { IJsonViolation, parseIJson } from '../kernel/i-json.js';
import { rejectUnstorable, rejectUnstorableInput } from './input-guard.js';

export const BODY_LIMIT_BYTES = 64 * 1024;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The body's bytes as received, before Content-Encoding is undone (a signature's Content-Digest is over them); empty without a body. */
      rawBody?: Buffer;
    }
  }
}

const EMPTY = Buffer.alloc(0);

const hasBody = (req: Parameters<RequestHandler>[0]) =>
  req.get('transfer-encoding') !== undefined || Number(req.get('content-length') ?? 0) > 0;

/** As body-parser decides it: a Transfer-Encoding or any Content-Length (even 0) means a body to read. */
const announcesBody = (req: Request) => req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && !Number.isNaN(parseInt(req.headers['content-length'], 10)));

/** JSON only: a body of any other type is refused rather than silently ignored. */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  if (hasBody(req) && !req.is('application/json')) {
    throw new AppError('invalid_request', 'Request bodies must be JSON (Content-Type: application/json).', 'body');
  }
  next();
};

const bodyError = (message: string, type: string, status: number) => Object.assign(new Error(message), { type, status });

/** A body's bytes with its Content-Encoding undone, held to the size limit (413 past it, 415 for another coding). */
function inflate(wire: Buffer, coding: string): Buffer {
  const decode = coding === 'identity' ? undefined : coding === 'gzip' ? gunzipSync : coding === 'deflate' ? inflateSync : coding === 'br' ? brotliDecompressSync : null;
  if (decode === undefined) return wire;
  if (decode === null) throw bodyError(`unsupported content encoding "${coding}"`, 'encoding.unsupported', 415);
  try {
    return decode(wire, { maxOutputLength: BODY_LIMIT_BYTES });
  } catch (err) {
    // zlib's own errors (Z_*, ERR_BROTLI*) are an undecodable body (400, src/http/errors.ts); only the size is ours.
    if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw bodyError('request entity too large', 'entity.too.large', 413);
    throw err;
  }
}

/** Reads off what is left of a refused body, so the answer reaches a client still sending it. */
function drain(req: Request): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    req.once('end', resolve).once('close', resolve).once('error', () => resolve());
    req.resume();
  });
}

/**
 * Reads any body once, held to the size limit: `req.rawBody` keeps the bytes as received (a
 * signature's Content-Digest is over them, DECISIONS §19); a JSON body is inflated (gzip, deflate,
 * br) into `req.body` as a Buffer for parseJson, as body-parser did (same 400, 413 and 415). A body
 * of another type is left unparsed, and refused later by requireJsonBody.
 */
export const readBody: RequestHandler = async (req, _res, next) => {
  if (!announcesBody(req)) {
    req.rawBody = EMPTY;
    return next();
  }
  let wire: Buffer;
  try {
    wire = await getRawBody(req, { length: req.headers['content-length'], limit: BODY_LIMIT_BYTES });
  } catch (err) {
    await drain(req);
    throw err;
  }
  req.rawBody = wire;
  if (req.is('application/json')) req.body = inflate(wire, (req.get('content-encoding') ?? 'identity').toLowerCase());
  next();
};

const notJson = () => invalid('The request body is not valid JSON.', 'body');

/**
 * The body as a value: UTF-8 I-JSON (docs/api.md, "Request bodies") whose top level is an object or
 * an array; an empty body reads as `{}`. A member name repeated in an object, or named `__proto__`
 * or `constructor`, is a 400 naming the member's path; a noncharacter or an unpaired surrogate in a
 * string, a 400 naming the string's path (its object's, for a member name). Bytes that are not
 * UTF-8 (a surrogate encoded raw among them) are refused whole: decoding would turn them into
 * U+FFFD, another text than the one sent.
 */
export function readJsonBody(bytes: Buffer, charset: string | undefined): unknown {
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw invalid(`Request bodies must be UTF-8 JSON; charset ${charset} is not accepted.`, 'Content-Type');
  }
  if (!isUtf8(bytes)) throw invalid('The request body is not valid UTF-8 (request bodies are I-JSON).', 'body');
  // A byte order mark may precede JSON text; parsers may ignore it (RFC 8259 §8.1).
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  if (text.length === 0) return {};
  const first = text[0] === '{' || text[0] === '[' ? text[0] : /^[\x20\x09\x0a\x0d]*(.)/.exec(text)?.[1];
  if (first !== '{' && first !== '[') throw notJson();
  let value: unknown;
  try {
    value = parseIJson(text);
  } catch (err) {
    if (err instanceof IJsonViolation) throw invalid(err.message, err.path);
    throw notJson();
  }
  // Decoded UTF-8 holds no lone surrogate and JSON text no raw NUL, and parseIJson refused escaped
  // lone surrogates: a NUL reaches a parsed body only through a \u escape, so only a body that has one is walked.
  if (text.includes('\\u')) rejectUnstorable(value, 'body');
  return value;
}

const parseJson: RequestHandler = (req, _res, next) => {
  if (!Buffer.isBuffer(req.body)) return next();
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.get('content-type') ?? '')?.[1]?.toLowerCase();
  req.body = readJsonBody(req.body, charset);
  next();
};

/**
 * The request's input, checked once readBody has read it: a JSON body (identity, gzip, deflate or
 * br) read as I-JSON, then path and query refused in one place when they hold text PostgreSQL cannot store.
 */
export const jsonChecks: RequestHandler[] = [requireJsonBody, parseJson, rejectUnstorableInput];

/**
 * Before a rail's handler: the body exactly as sent, held to the size limit: the signature is over
 * these bytes (no decompression, no parsing; the rail reads them as I-JSON once its signature
 * holds). The arrival time its deadline counts from is stamped by the app's first middleware.
 */
export const RAW_BODY: readonly RequestHandler[] = [express.raw({ type: () => true, limit: BODY_LIMIT_BYTES, inflate: false })];
