/**
 * Which Temporal server a server test may use, never downloading one:
 *   TEMPORAL_ADDRESS=localhost:7233         an existing server
 *   TEMPORAL_CLI_PATH=/path/to/temporal     the CLI's dev server (the global setup sets it from
 *                                           `temporal` on PATH or the cache `npm start` fills,
 *                                           src/temporal/cli-acquisition.ts): one for the whole run
 *                                           (test/support/shared-temporal.ts), a namespace of its
 *                                           own per file; or the file's own, when it asks
 *   TEMPORAL_TEST_SERVER_PATH=/path/to/temporal-test-server   the time-skipping test server
 * Without any of them a server test skips with one printed line, except in CI (CI=true), where a
 * missing server is a failure: .ci/run always provides one.
 */
import { randomUUID } from 'node:crypto';
import { Connection, type Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { ensureSearchAttributes } from '../../src/temporal/worker.js';
import { startDevServer, type DevServer } from './dev-server.js';
import { isExecutableFile, sharedDevServerAddress } from './shared-temporal.js';

export type ServerMode = { kind: 'existing'; address: string } | { kind: 'dev-server'; path: string } | { kind: 'time-skipping'; path: string };


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
  /** The dev server this file started (dev-server mode with `own`, `uiPort` or `dbFile` only; the shared one is not the file's to stop). */
  devServer?: DevServer;
  teardown(): Promise<void>;
}

export interface OpenServerOptions {
  /** The file's own dev server, never the run's shared one: for files that stop, restart or kill it. */
  own?: boolean;
  /** Serve the Web UI on this port (0: a free one): the file's own server. */
  uiPort?: number;
  /** Keep the server's state in this SQLite file (across its restarts): the file's own server. */
  dbFile?: string;
}

/** The most a file's teardown spends deleting its Schedules, which the shared server would otherwise keep firing for the rest of the run. */
const NAMESPACE_CLEANUP_MS = 5_000;

/**
 * A namespace of this file's own on the shared server, with the service's search attributes: the
 * worker creates its Schedules under fixed ids, and tests read them, pause, trigger and delete
 * them, list workflows by search attribute and start workflows with fixed ids; in one namespace
 * two files running at once would see and change each other's.
 */
async function fileNamespace(address: string): Promise<string> {
  const namespace = `test-${process.pid}-${randomUUID().slice(0, 8)}`;
  const connection = await Connection.connect({ address });
  try {
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  } finally {
    await connection.close();
  }
  // The server reads search attributes through on each query (forceSearchAttributesCacheRefreshOnRead): usable at once.
  await ensureSearchAttributes({ address, namespace });
  return namespace;
}

async function deleteSchedules(client: Client): Promise<void> {
  const ids: string[] = [];
  for await (const s of client.schedule.list()) ids.push(s.scheduleId);
  await Promise.all(ids.map((id) => client.schedule.getHandle(id).delete().catch(() => undefined)));
}

/** Never bare createLocal/createTimeSkipping: without an explicit executable they download one. */
export async function openServer(m: ServerMode, opts: OpenServerOptions = {}): Promise<ServerEnvironment> {
  const namespace = process.env.TEMPORAL_NAMESPACE || 'default';
  switch (m.kind) {
    case 'existing': {
      const env = await TestWorkflowEnvironment.createFromExistingServer({ address: m.address, namespace });
      return { env, address: m.address, namespace, teardown: () => env.teardown() };
    }
    case 'dev-server': {
      const { own, ...serverOpts } = opts;
      const shared = own || opts.uiPort !== undefined || opts.dbFile ? undefined : await sharedDevServerAddress();
      if (shared) {
        const ns = await fileNamespace(shared);
        const env = await TestWorkflowEnvironment.createFromExistingServer({ address: shared, namespace: ns });
        return {
          env,
          address: shared,
          namespace: ns,
          // The shared server stays up for the other files.
          teardown: async () => {
            await Promise.race([deleteSchedules(env.client).catch(() => undefined), new Promise((r) => setTimeout(r, NAMESPACE_CLEANUP_MS).unref())]);
            await env.teardown();
          },
        };
      }
      const devServer = await startDevServer({ cliPath: m.path, namespace, ...serverOpts });
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
