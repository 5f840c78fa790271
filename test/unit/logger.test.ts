import { describe, expect, it } from 'vitest';
import { createLogger, formatLogLine, prettyDestination, resolveLogFormat } from '../../src/kernel/logger.js';

describe('log format', () => {
  it.each([
    [undefined, true, 'development', 'pretty'],
    [undefined, true, 'test', 'pretty'],
    [undefined, false, 'development', 'json'],
    [undefined, true, 'production', 'json'],
    ['json', true, 'development', 'json'],
    ['pretty', false, 'production', 'pretty'],
  ] as const)('LOG_FORMAT=%s, terminal %s, NODE_ENV=%s → %s', (configured, tty, nodeEnv, expected) => {
    expect(resolveLogFormat(configured, { tty, nodeEnv })).toBe(expected);
  });
});

describe('pretty log lines', () => {
  const time = new Date(2026, 10, 23, 9, 5, 7, 42).getTime();

  it('show the local time, the level, the message and the fields as key=value, without pid, hostname or name', () => {
    const line = JSON.stringify({ level: 30, time, pid: 7, hostname: 'vm', name: 'spend-auth', host: '127.0.0.1', port: 3000, database: 'embedded', msg: 'API listening' });
    expect(formatLogLine(line)).toBe('09:05:07.042 INFO  API listening host=127.0.0.1 port=3000 database=embedded\n');
  });

  it('quote strings with spaces, write objects as JSON, and show an error by its message', () => {
    const line = JSON.stringify({ level: 40, time, msg: 'outbox row failed', note: 'two words', ids: ['a', 'b'], err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x (y.ts:1:1)' } });
    expect(formatLogLine(line)).toBe('09:05:07.042 WARN  outbox row failed note="two words" ids=["a","b"] err=boom\n');
  });

  it('follow an error line with its stack, indented', () => {
    const line = JSON.stringify({ level: 50, time, msg: 'unhandled error', err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x (y.ts:1:1)' } });
    expect(formatLogLine(line)).toBe('09:05:07.042 ERROR unhandled error err=boom\n    at x (y.ts:1:1)\n');
  });

  it('go through pino with credentials still redacted', () => {
    const out: string[] = [];
    const log = createLogger('info', 'spend-auth', prettyDestination({ write: (t) => out.push(t) }));
    log.info({ key: 'gc_test_secret', account_id: 'acct_1' }, 'key created');
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  key created key=\[redacted\] account_id=acct_1\n$/);
  });
});
