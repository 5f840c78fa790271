import { z } from 'zod';
import { invalid } from '../kernel/errors.js';

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let v: unknown = input;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

function describe(issue: z.core.$ZodIssue, input: unknown): { param: string; message: string } {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const key = [...path, issue.keys[0] ?? ''].join('.');
    return { param: key, message: `Unknown parameter: ${key}.` };
  }
  const param = path.join('.') || 'body';
  if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined) {
    return { param, message: `Missing required parameter: ${param}.` };
  }
  return { param, message: `Invalid ${param}: ${issue.message}` };
}

/** Parses untrusted input; the first issue becomes a 400 invalid_request naming its parameter. */
export function parse<S extends z.ZodType>(schema: S, input: unknown, fallbackParam = 'body'): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  if (!first) throw invalid('Invalid request.', fallbackParam);
  const { param, message } = describe(first, input);
  throw invalid(message, param || fallbackParam);
}

/** A JSON object body; a missing body on POST is an empty object. */
export const bodyObject = (body: unknown): unknown => (body === undefined ? {} : body);
