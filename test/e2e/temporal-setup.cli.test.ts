/**
 * `spend-auth temporal setup` against a real Temporal dev server started without the service's
 * search attributes: it registers them and creates the Schedules; run again, it changes nothing
 * but brings the Schedules up to date. Against no engine it fails with one line and exit code 1.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ALL_SEARCH_ATTRIBUTE_KEYS } from '../../src/temporal/search-attributes.js';
import { CAPTURE_EXPIRY_SCHEDULE_ID, RECONCILE_SCHEDULE_ID, USAGE_REPORT_SCHEDULE_ID } from '../../src/temporal/periodic-jobs.js';
import { startDevServer, type DevServer } from '../support/dev-server.js';
import { TEST_SERVER_KEYS_ENV } from '../support/server-keys.js';
import { serverModeOrSkip } from '../support/temporal-server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin', 'spend-auth.js');
const mode = serverModeOrSkip('temporal setup');
const cli = mode?.kind === 'dev-server' ? mode.path : undefined;
if (mode && !cli) console.log('[temporal setup] skipped: needs TEMPORAL_CLI_PATH (a dev server without the search attributes)');

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...TEST_SERVER_KEYS_ENV, ...env, LOG_LEVEL: 'error' }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe.skipIf(!cli)('spend-auth temporal setup', () => {
  let server: DevServer;
  let dataDir: string;

  beforeAll(async () => {
    server = await startDevServer({ cliPath: cli!, searchAttributes: false });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spend-auth-setup-'));
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('registers the missing search attributes and creates the Schedules; a second run changes nothing', async () => {
    const env = { TEMPORAL_ADDRESS: server.address, DATA_DIR: dataDir };
    const first = await run(['temporal', 'setup'], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`Namespace default: search attributes registered ${ALL_SEARCH_ATTRIBUTE_KEYS.map((k) => k.name).join(', ')}.`);
    expect(first.stdout).toContain(`Schedule ${USAGE_REPORT_SCHEDULE_ID}: created.`);
    expect(first.stdout).toContain(`Schedule ${RECONCILE_SCHEDULE_ID}: created.`);
    expect(first.stdout).toContain(`Schedule ${CAPTURE_EXPIRY_SCHEDULE_ID}: created.`);

    const connection = await Connection.connect({ address: server.address });
    try {
      const listed = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      for (const k of ALL_SEARCH_ATTRIBUTE_KEYS) expect(Object.keys(listed.customAttributes ?? {})).toContain(k.name);
      const client = new Client({ connection });
      expect((await client.schedule.getHandle(RECONCILE_SCHEDULE_ID).describe()).action).toMatchObject({ workflowType: 'reconcileHeldRequests' });
    } finally {
      await connection.close();
    }

    const second = await run(['temporal', 'setup', '--json'], env);
    expect(second.code).toBe(0);
    const report = JSON.parse(second.stdout);
    expect(report).toMatchObject({ namespace: 'default', searchAttributes: { added: [] }, schedules: { [USAGE_REPORT_SCHEDULE_ID]: 'updated', [RECONCILE_SCHEDULE_ID]: 'updated', [CAPTURE_EXPIRY_SCHEDULE_ID]: 'updated' } });
    expect(report.searchAttributes.present).toHaveLength(ALL_SEARCH_ATTRIBUTE_KEYS.length);
  }, 120_000);

  test('no engine at TEMPORAL_ADDRESS: one line on stderr, exit code 1', async () => {
    const res = await run(['temporal', 'setup'], { TEMPORAL_ADDRESS: '127.0.0.1:1', DATA_DIR: dataDir });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/^spend-auth: temporal setup against 127\.0\.0\.1:1 \(namespace default\) failed: /);
  }, 60_000);

  test('--help prints its usage and does nothing else', async () => {
    const res = await run(['temporal', 'setup', '--help'], { TEMPORAL_ADDRESS: '127.0.0.1:1', DATA_DIR: dataDir });
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Usage: spend-auth temporal setup/);
  });
});
