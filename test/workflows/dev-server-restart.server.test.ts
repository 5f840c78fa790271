/**
 * A restarted dev server comes up under load, in the test harness and in `npm start`'s supervisor:
 * restarted several times on the same port and state file while busy processes load every core, and
 * while another process binds a port the CLI chose before the CLI binds it (the fault behind "exited
 * (2) before it was ready" with a Go stack from the worker service's start); and a restart whose port
 * another process holds for a while waits for it. src/temporal/ports.ts says why.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLogger } from '../../src/kernel/logger.js';
import { devServerFiles, isAlive, readRecord, superviseDevServer } from '../../src/temporal/dev-supervisor.js';
import { startCpuLoad, type CpuLoad } from '../support/cpu-load.js';
import { startDevServer, tempDbFile, type DevServer } from '../support/dev-server.js';
import { LOG_CONFIG_ARGS, portTaker } from '../support/port-taker.js';
import { serverModeOrSkip } from '../support/temporal-server.js';
import { until } from '../support/wait.js';

const mode = serverModeOrSkip('dev server restart');
const cli = mode?.kind === 'dev-server' ? mode.path : undefined;
if (mode && !cli) console.log('[dev server restart] skipped: needs TEMPORAL_CLI_PATH (the tests restart the dev server)');

const RESTARTS = 3;
const WORKFLOW_ID = 'restart-probe';

/** The server answers on its address, and the workflow started before the restarts is still there. */
async function probe(address: string): Promise<string> {
  const connection = await Connection.connect({ address, connectTimeout: 5_000 });
  try {
    const d = await new Client({ connection }).workflow.getHandle(WORKFLOW_ID).describe();
    return d.status.name;
  } finally {
    await connection.close();
  }
}

describe.skipIf(!cli)('a restarted dev server under load', () => {
  let load: CpuLoad;
  const db = tempDbFile('dev-server-restart');
  const logFile = path.join(path.dirname(db.file), 'temporal.log');
  let server: DevServer | undefined;
  const conflicts: Array<{ port?: number; attempt: number }> = [];

  beforeAll(async () => {
    // Twice as many busy processes as cores: a load average of about 2 per core, as beside a mutation run.
    load = startCpuLoad(2 * os.availableParallelism());
    server = await startDevServer({ cliPath: cli!, dbFile: db.file, logFile, extraArgs: LOG_CONFIG_ARGS, onPortConflict: (c) => void conflicts.push(c) });
    const connection = await Connection.connect({ address: server.address });
    try {
      // No worker: the workflow stays running, in the SQLite file across the restarts.
      await new Client({ connection }).workflow.start('restartProbe', { taskQueue: 'dev-server-restart', workflowId: WORKFLOW_ID });
    } finally {
      await connection.close();
    }
  }, 60_000);
  afterAll(async () => {
    load?.stop();
    await server?.stop();
    db.remove();
  });

  test(`restarted ${RESTARTS} times while another process binds the worker service's port first: each restart comes up on the same port and state`, async () => {
    const taker = portTaker(logFile, 'worker');
    let takenRounds = 0;
    try {
      for (let round = 0; round < RESTARTS; round++) {
        const before = conflicts.length;
        await server!.stop();
        taker.arm();
        await server!.restart();
        const taken = taker.taken();
        await taker.release();
        expect(await probe(server!.address)).toBe('RUNNING');
        if (taken === undefined) continue;
        // The port was bound before the server's worker service bound it: that launch died of it and was launched again.
        takenRounds++;
        expect(conflicts.slice(before).map((c) => c.port)).toContain(taken);
      }
    } finally {
      await taker.release();
    }
    console.log(`[dev server restart] the worker service's port was taken first in ${takenRounds} of ${RESTARTS} restarts`);
  }, 60_000);

  test("a restart while another process holds the server's port waits for it, then comes up on it", async () => {
    await server!.stop();
    // It answers nothing: a connection to it is dropped at once (close() then waits for none).
    const holder = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => holder.listen(server!.port, '127.0.0.1', resolve));
    const restarted = server!.restart().then(
      () => undefined,
      (err: Error) => err,
    );
    // Held for a while, then let go.
    await new Promise((r) => setTimeout(r, 2_000));
    await new Promise((r) => holder.close(r));
    expect(await restarted).toBeUndefined();
    expect(await probe(server!.address)).toBe('RUNNING');
  }, 60_000);
});

describe.skipIf(!cli)("npm start's supervisor under load", () => {
  let load: CpuLoad;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-supervisor-restart-'));
  const files = devServerFiles(dataDir);
  const lines: Array<{ msg: string; port?: number }> = [];

  let supervised: Awaited<ReturnType<typeof superviseDevServer>> | undefined;

  beforeAll(async () => {
    load = startCpuLoad(2 * os.availableParallelism());
    const log = createLogger('info', 'dev-supervisor-test', { write: (line: string) => void lines.push(JSON.parse(line)) });
    supervised = await superviseDevServer({ cliPath: cli!, dataDir, namespace: 'default', log, devServerArgs: LOG_CONFIG_ARGS });
  }, 60_000);
  afterAll(async () => {
    load?.stop();
    await supervised?.stop();
    const pid = readRecord(files.pid)?.pid;
    if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('a dev server killed twice is started again each time on its address, also when its worker port is taken first', async () => {
    const taker = portTaker(files.log, 'worker');
    let takenRounds = 0;
    try {
      for (let round = 0; round < 2; round++) {
        const killed = readRecord(files.pid)!.pid!;
        taker.arm();
        process.kill(killed, 'SIGKILL');
        await until('the dev server started again', () => {
          const pid = readRecord(files.pid)?.pid;
          return pid && pid !== killed && isAlive(pid) ? pid : undefined;
        }, 50_000, 100);
        const taken = taker.taken();
        await taker.release();
        const connection = await Connection.connect({ address: supervised!.address, connectTimeout: 5_000 });
        await connection.workflowService.describeNamespace({ namespace: 'default' });
        await connection.close();
        if (taken === undefined) continue;
        takenRounds++;
        expect(lines.filter((l) => l.msg === 'Temporal dev server could not bind a port; starting it again').map((l) => l.port)).toContain(taken);
      }
      console.log(`[dev server restart] the supervised server's worker port was taken first in ${takenRounds} of 2 restarts`);
      expect(lines.filter((l) => l.msg === 'Temporal dev server restarted')).toHaveLength(2);
      // A lost race of the supervisor's start is logged and launched again, never a failed restart.
      expect(lines.filter((l) => l.msg.startsWith('Temporal dev server did not restart'))).toEqual([]);
    } finally {
      await taker.release();
    }
  }, 60_000);
});
