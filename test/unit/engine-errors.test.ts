import { describe, expect, test } from 'vitest';
import { isConnectivityError } from '../../src/temporal/gateway.js';

/** What the client throws when the engine is away: the gRPC status sits on `.cause`, not on the error. */
const wrapped = (code: number, message = 'Unexpected error while making gRPC request') =>
  Object.assign(new Error(message), { name: 'ServiceError', cause: Object.assign(new Error(`${code} status`), { code }) });

describe('isConnectivityError', () => {
  test.each([
    ['UNAVAILABLE on .cause', wrapped(14)],
    ['DEADLINE_EXCEEDED on .cause', wrapped(4)],
    ['CANCELLED on .cause', wrapped(1)],
    ['UNAVAILABLE on the error itself', Object.assign(new Error('x'), { code: 14 })],
    ['a connection refused', new Error('connect ECONNREFUSED 127.0.0.1:7233')],
  ])('%s: an outage', (_name, err) => {
    expect(isConnectivityError(err)).toBe(true);
  });

  test.each([
    ['INVALID_ARGUMENT on .cause', wrapped(3, 'Unexpected error while making gRPC request')],
    ['NOT_FOUND on .cause', wrapped(5, 'Unexpected error while making gRPC request')],
    ['a plain error', new Error('search attribute AgentId is not defined')],
    ['not an error', 'boom'],
  ])('%s: not an outage', (_name, err) => {
    expect(isConnectivityError(err)).toBe(false);
  });
});
