import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON logs on stdout; credentials are redacted wherever they might appear. */
export function createLogger(level: string, name = 'spend-auth'): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['req.headers.authorization', '*.authorization', '*.key', '*.secret', '*.token', '*.authorization_token'],
      censor: '[redacted]',
    },
  });
}
