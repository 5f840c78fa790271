/**
 * The dev server's state file (`npm start`'s engine, src/temporal/dev-server.ts) is written ahead
 * (SQLite WAL, synced at checkpoints): a workflow start then costs half the server's CPU
 * (bench/dev-server-starts.ts). What that must not cost: a workflow the server accepted is still
 * there after the server is killed with SIGKILL and started again on the same file.
 */
import fs from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, test } from 'vitest';
import { startDevServer, tempDbFile, type DevServer } from '../support/dev-server.js';
import { serverModeOrSkip } from '../support/temporal-server.js';
import { until } from '../support/wait.js';

const mode = serverModeOrSkip('dev server state');
const cli = mode?.kind === 'dev-server' ? mode.path : undefined;
const db = tempDbFile('dev-server-state');
let server: DevServer | undefined;

afterAll(async () => {
  await server?.stop();
  db.remove();
});

/** SQLite's header: bytes 18 and 19 are 2 in a database in WAL mode, 1 in a rollback-journal one. */
const journalVersions = (file: string) => {
  const header = Buffer.alloc(20);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, header, 0, 20, 0);
  } finally {
    fs.closeSync(fd);
  }
  return [header[18], header[19]];
};

describe.skipIf(!cli)('dev server state file', () => {
  test('is written ahead (WAL), and a workflow it accepted outlives a SIGKILL of the server', async () => {
    server = await startDevServer({ cliPath: cli!, dbFile: db.file });
    expect(journalVersions(db.file)).toEqual([2, 2]);
    let connection = await Connection.connect({ address: server.address });
    await new Client({ connection }).workflow.start('heldAuthorization', { workflowId: 'state-survives', taskQueue: 'nobody', args: [{}] });
    await connection.close();

    const pid = server.pid()!;
    process.kill(pid, 'SIGKILL');
    await until('server gone', async () => (server!.pid() === undefined ? true : undefined), 20_000, 100);
    await server.restart();
    connection = await Connection.connect({ address: server.address });
    const description = await new Client({ connection }).workflow.getHandle('state-survives').describe();
    await connection.close();
    expect(description.status.name).toBe('RUNNING');
  }, 180_000);
});
