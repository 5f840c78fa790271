/** The dev server for tests: src/temporal/dev-server.ts, plus a scratch folder for its SQLite file. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export { freePort, startDevServer, type DevServer } from '../../src/temporal/dev-server.js';

/** A fresh directory for a dev server's SQLite file. */
export function tempDbFile(prefix: string): { file: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  return { file: path.join(dir, 'temporal.db'), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
