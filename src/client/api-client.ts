import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './openapi-types.js';

/**
 * The typed client of our own callers (the MCP server; the dashboard uses the same types through
 * JSDoc), generated from the OpenAPI document: a path, body or query the document does not have is
 * a compile error, and so is reading a response field it does not describe.
 */
export type ApiClient = Client<paths>;
export type { paths };

type Method = 'get' | 'post' | 'patch' | 'delete';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type SuccessStatus = 200 | 201;

/** The JSON body of an operation's success answer, as the document describes it. */
export type ResponseBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { responses: infer R }
    ? { [S in SuccessStatus & keyof R]: R[S] extends { content: { 'application/json': infer B } } ? B : never }[SuccessStatus & keyof R]
    : never;

/** The JSON body an operation takes. */
export type RequestBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/**
 * `Documented<T, Fallback>` is T once the document describes the object, else Fallback: a response
 * the document gives only as `{type: "object"}` is generated as an open record with no fields.
 */
export type Documented<T, Fallback> = string extends keyof T ? Fallback : T;

export interface ApiClientOptions {
  /** The service's base address as SPEND_AUTH_BASE_URL gives it, with or without `/v1`. */
  baseUrl: string;
  apiKey: string;
  fetch?: (input: Request) => Promise<Response>;
}

/** `http://host/v1` → `http://host`: the document's paths carry `/v1` themselves. */
export function serviceRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** A client that sends the key on every call and asks for JSON. */
export function createApiClient({ baseUrl, apiKey, fetch }: ApiClientOptions): ApiClient {
  return createClient<paths>({
    baseUrl: serviceRoot(baseUrl),
    headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
    ...(fetch ? { fetch } : {}),
  });
}
