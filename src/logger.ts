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
