import fs from 'node:fs';
import { defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type ConnectionOptions } from '@temporalio/client';
import type { NativeConnectionOptions } from '@temporalio/worker';

/** How to reach the engine: a local server, or Temporal Cloud with mTLS or an API key. */
export interface EngineConnectionSettings {
  address: string;
  namespace: string;
  /** TLS: a client certificate and key for mTLS, a server CA, a server name (PEM text, or paths to PEM files). */
  tls?: { cert?: string | undefined; key?: string | undefined; ca?: string | undefined; serverName?: string | undefined } | undefined;
  /** Temporal Cloud API key (sent as a bearer token; implies TLS). */
  apiKey?: string | undefined;
}

/** PEM given inline, or a path to a PEM file. */
const pem = (value: string): Buffer => (value.trimStart().startsWith('-----BEGIN') ? Buffer.from(value) : fs.readFileSync(value));

function tlsOptions(s: EngineConnectionSettings) {
  if (s.tls) {
    return {
      ...(s.tls.cert && s.tls.key ? { clientCertPair: { crt: pem(s.tls.cert), key: pem(s.tls.key) } } : {}),
      ...(s.tls.ca ? { serverRootCACertificate: pem(s.tls.ca) } : {}),
      ...(s.tls.serverName ? { serverNameOverride: s.tls.serverName } : {}),
    };
  }
  // An API key only travels over TLS (the system's roots).
  return s.apiKey ? true : undefined;
}

type GrpcInterceptor = NonNullable<ConnectionOptions['interceptors']>[number];

/**
 * The SDK's own retries of an unavailable engine (up to 10 attempts, backing off to 5 s), except
 * that a retry which would start after the call's deadline is not made: the SDK sleeps first and
 * only then meets the deadline, so a reviewer waited up to 5 s past it for the 503.
 */
export function deadlineBoundedRetries(): GrpcInterceptor {
  const sdk = defaultGrpcRetryOptions();
  return (options, nextCall) => {
    const deadline = options.deadline === undefined ? Infinity : new Date(options.deadline as Date | number).getTime();
    let delay = 0;
    return makeGrpcRetryInterceptor({
      retryableDecider(attempt, status) {
        if (!sdk.retryableDecider(attempt, status)) return false;
        delay = sdk.delayFunction(attempt, status);
        return Date.now() + delay < deadline;
      },
      delayFunction: () => delay,
    })(options, nextCall);
  };
}

/** Options of the client's Connection (API, gateway, schedules, setup). */
export function clientConnectionOptions(s: EngineConnectionSettings, connectTimeoutMs?: number): ConnectionOptions {
  const tls = tlsOptions(s);
  return {
    address: s.address,
    interceptors: [deadlineBoundedRetries()],
    ...(tls ? { tls } : {}),
    ...(s.apiKey ? { apiKey: s.apiKey } : {}),
    ...(connectTimeoutMs ? { connectTimeout: connectTimeoutMs } : {}),
  };
}

/** Options of the worker's NativeConnection: the same server, credentials and trust. */
export function nativeConnectionOptions(s: EngineConnectionSettings): NativeConnectionOptions {
  const tls = tlsOptions(s);
  return { address: s.address, ...(tls ? { tls } : {}), ...(s.apiKey ? { apiKey: s.apiKey } : {}) };
}
