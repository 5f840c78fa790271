import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs on stdout (or `stderr`, for commands whose stdout is their result); credentials are
 * redacted wherever they might appear.
 */
export function createLogger(level: string, name = 'spend-auth', to: 'stdout' | 'stderr' = 'stdout'): Logger {
  const options = {
    name,
    level,
    redact: {
      paths: ['req.headers.authorization', '*.authorization', '*.key', '*.secret', '*.token', '*.authorization_token'],
      censor: '[redacted]',
    },
  };
  return to === 'stderr' ? pino(options, pino.destination({ fd: 2, sync: true })) : pino(options);
}
