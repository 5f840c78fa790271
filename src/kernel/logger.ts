import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Field names that hold credentials: an API key, a webhook secret, a gca_ token, a signing key. */
const SECRET_FIELDS = ['authorization', 'key', 'secret', 'token', 'authorization_token', 'api_key', 'password', 'cookie', 'signing_key'];

/** Redacted at the top level and two levels down (pino paths have no deep wildcard). */
export const REDACT_PATHS = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  ...SECRET_FIELDS.map((f) => `*.*.${f}`),
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
];

/** JSON logs on stdout (or `destination`); credentials are redacted wherever they might appear. */
export function createLogger(level: string, name = 'spend-auth', destination?: DestinationStream): Logger {
  const options = { name, level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}

export type LogFormat = 'json' | 'pretty';

/** LOG_FORMAT when set; otherwise readable lines for a person at a terminal, JSON for machines and production. */
export function resolveLogFormat(configured: LogFormat | undefined, opts: { tty: boolean; nodeEnv: string }): LogFormat {
  return configured ?? (opts.tty && opts.nodeEnv !== 'production' ? 'pretty' : 'json');
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Written by pino on every line; the pretty form leaves them out (the time is shown, the rest never changes). */
const FIXED_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg']);

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const fieldValue = (v: unknown) => (typeof v === 'string' ? (/^[^\s"=]+$/.test(v) ? v : JSON.stringify(v)) : JSON.stringify(v));

/**
 * One pino JSON line as a person reads it: `16:49:02.123 INFO  API listening host=127.0.0.1 port=3000`.
 * An error shows its message; at level error and above, its stack follows, indented.
 */
export function formatLogLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const t = new Date(typeof entry.time === 'number' ? entry.time : Date.now());
  const level = typeof entry.level === 'number' ? entry.level : 30;
  const fields: string[] = [];
  let stack: string | undefined;
  for (const [key, value] of Object.entries(entry)) {
    if (FIXED_FIELDS.has(key) || value === undefined) continue;
    const err = value as { message?: unknown; stack?: unknown } | null;
    if (key === 'err' && err && typeof err === 'object' && typeof err.message === 'string') {
      fields.push(`err=${fieldValue(err.message)}`);
      if (level >= 50 && typeof err.stack === 'string') stack = err.stack.split('\n').slice(1).join('\n');
    } else {
      fields.push(`${key}=${fieldValue(value)}`);
    }
  }
  const time = `${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())}.${pad(t.getMilliseconds(), 3)}`;
  const head = [time, (LEVELS[level] ?? String(level)).padEnd(5), String(entry.msg ?? ''), ...fields].join(' ');
  return `${head}\n${stack ? `${stack}\n` : ''}`;
}

/** A pino destination writing readable lines to `out` (a terminal). */
export function prettyDestination(out: { write(text: string): unknown }): DestinationStream {
  return { write: (line: string) => void out.write(formatLogLine(line)) };
}
