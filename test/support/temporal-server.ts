/**
 * Which Temporal server a server test may use, never downloading one:
 *   TEMPORAL_ADDRESS=localhost:7233         an existing server
 *   TEMPORAL_CLI_PATH=/path/to/temporal     the CLI's dev server, started by the test
 *   TEMPORAL_TEST_SERVER_PATH=/path/to/temporal-test-server   the time-skipping test server
 */
import fs from 'node:fs';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { ALL_SEARCH_ATTRIBUTE_KEYS } from '../../src/temporal/search-attributes.js';

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

export function pickServerMode(): ServerMode | { skip: string } {
  const address = process.env.TEMPORAL_ADDRESS?.trim();
  if (address) return { kind: 'existing', address };
  const cli = process.env.TEMPORAL_CLI_PATH?.trim();
  if (isExecutableFile(cli)) return { kind: 'dev-server', path: cli };
  const testServer = process.env.TEMPORAL_TEST_SERVER_PATH?.trim();
  if (isExecutableFile(testServer)) return { kind: 'time-skipping', path: testServer };
  const named = cli ? `TEMPORAL_CLI_PATH=${cli}` : testServer ? `TEMPORAL_TEST_SERVER_PATH=${testServer}` : undefined;
  return {
    skip: named ? `${named} is not an executable file` : 'no Temporal server (set TEMPORAL_ADDRESS, TEMPORAL_CLI_PATH or TEMPORAL_TEST_SERVER_PATH)',
  };
}

/** Never bare createLocal/createTimeSkipping: without an explicit executable they download one. */
export async function createServerEnvironment(m: ServerMode): Promise<TestWorkflowEnvironment> {
  switch (m.kind) {
    case 'existing':
      return TestWorkflowEnvironment.createFromExistingServer({ address: m.address, namespace: process.env.TEMPORAL_NAMESPACE || 'default' });
    case 'dev-server':
      return TestWorkflowEnvironment.createLocal({
        server: { executable: { type: 'existing-path', path: m.path }, searchAttributes: ALL_SEARCH_ATTRIBUTE_KEYS },
      });
    case 'time-skipping':
      return TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: m.path } } });
  }
}
