/**
 * Which Temporal server a server test may use, never downloading one:
 *   TEMPORAL_ADDRESS=localhost:7233         an existing server
 *   TEMPORAL_CLI_PATH=/path/to/temporal     the CLI's dev server, started by the test file (the
 *                                           global setup sets it from `temporal` on PATH or the
 *                                           cache `npm start` fills, src/temporal/cli-acquisition.ts)
 *   TEMPORAL_TEST_SERVER_PATH=/path/to/temporal-test-server   the time-skipping test server
 * Without any of them a server test skips with one printed line, except in CI (CI=true), where a
 * missing server is a failure: .ci/run always provides one.
 */
import fs from 'node:fs';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { startDevServer, type DevServer } from './dev-server.js';

export type ServerMode = { kind: 'existing'; address: string } | { kind: 'dev-server'; path: string } | { kind: 'time-skipping'; path: string };

const isExecutableFile = (p: string | undefined): p is string => {
  if (!p) return false;
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
};

/** True on CI runs, where a server test must never skip for lack of a server. */
export const SERVER_REQUIRED = /^(1|true|yes)$/i.test(process.env.CI ?? '');

export function pickServerMode(): ServerMode | { skip: string } {
  const address = process.env.TEMPORAL_ADDRESS?.trim();
  if (address) return { kind: 'existing', address };
  const cli = process.env.TEMPORAL_CLI_PATH?.trim();
  if (isExecutableFile(cli)) return { kind: 'dev-server', path: cli };
  const testServer = process.env.TEMPORAL_TEST_SERVER_PATH?.trim();
  if (isExecutableFile(testServer)) return { kind: 'time-skipping', path: testServer };
  const named = cli ? `TEMPORAL_CLI_PATH=${cli}` : testServer ? `TEMPORAL_TEST_SERVER_PATH=${testServer}` : undefined;
  return {
    skip: named
      ? `${named} is not an executable file`
      : 'no Temporal server (run `npm start` once to fetch the CLI, or set TEMPORAL_CLI_PATH=$(npx tsx scripts/temporal-cli.ts), TEMPORAL_ADDRESS or TEMPORAL_TEST_SERVER_PATH)',
  };
}

/**
 * The mode for a server test file, printing the one skip line when there is none. In CI a missing
 * server throws at collection, so the file fails instead of skipping.
 */
export function serverModeOrSkip(label: string): ServerMode | undefined {
  const picked = pickServerMode();
  if (!('skip' in picked)) return picked;
  if (SERVER_REQUIRED) throw new Error(`[${label}] CI=true but ${picked.skip}: server tests must run in CI`);
  console.log(`[${label}] skipped: ${picked.skip}`);
  return undefined;
}

export interface ServerEnvironment {
  env: TestWorkflowEnvironment;
  address: string;
  namespace: string;
  /** The dev server this file started (dev-server mode only). */
  devServer?: DevServer;
  teardown(): Promise<void>;
}

/** Never bare createLocal/createTimeSkipping: without an explicit executable they download one. */
export async function openServer(m: ServerMode, opts: { uiPort?: number; dbFile?: string } = {}): Promise<ServerEnvironment> {
  const namespace = process.env.TEMPORAL_NAMESPACE || 'default';
  switch (m.kind) {
    case 'existing': {
      const env = await TestWorkflowEnvironment.createFromExistingServer({ address: m.address, namespace });
      return { env, address: m.address, namespace, teardown: () => env.teardown() };
    }
    case 'dev-server': {
      const devServer = await startDevServer({ cliPath: m.path, namespace, ...opts });
      const env = await TestWorkflowEnvironment.createFromExistingServer({ address: devServer.address, namespace });
      return {
        env,
        address: devServer.address,
        namespace,
        devServer,
        teardown: async () => {
          await env.teardown();
          await devServer.stop();
        },
      };
    }
    case 'time-skipping': {
      const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: m.path } } });
      return { env, address: env.address, namespace: env.namespace ?? 'default', teardown: () => env.teardown() };
    }
  }
}
