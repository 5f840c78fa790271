/**
 * One Temporal dev server and one build of each workflow bundle for the whole run, instead of one
 * of each per server test file (a dev server start and a bundle are a few CPU-seconds each).
 *
 * The global setup starts a small broker on 127.0.0.1 and names it in SHARED_TEMPORAL_ENV, which
 * every test process inherits. Nothing is started until a file asks: a run of unit tests alone
 * (the global setup finds the CLI in the cache for those too) pays for neither.
 *   GET  /server   the run's dev server, started at the first request (TEMPORAL_CLI_PATH an
 *                  executable and no TEMPORAL_ADDRESS; else 404: the file uses what it would have)
 *   POST /bundle   bundleWorkflowCode of the JSON options in the body, built once per distinct
 *                  options in a child process (webpack would stall the run's own event loop, which
 *                  serves every test process), written to a file in the run's temporary directory
 * The server runs in memory with the search attributes and settings a file's own server has
 * (src/temporal/dev-server.ts defaults) and dies with the run (RUN_PIDS, seen from the run's own
 * process). Files share it through a namespace each (test/support/temporal-server.ts).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BundleOptions, WorkflowBundle } from '@temporalio/worker';
import { startDevServer, type DevServer } from './dev-server.js';

/** The broker's base URL (not TEMPORAL_ADDRESS, which names a server of the user's own). */
export const SHARED_TEMPORAL_ENV = 'SPEND_AUTH_TEST_SHARED_TEMPORAL';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The service's workflows: the only source whose bundles are shared (others are used by one file each). */
export const SHARED_WORKFLOWS_PATH = path.join(ROOT, 'workflows', 'index.ts');

type SharedBundleOptions = Pick<BundleOptions, 'workflowsPath' | 'workflowInterceptorModules'>;

/** True for an executable regular file (a Temporal CLI named by TEMPORAL_CLI_PATH). */
export const isExecutableFile = (p: string | undefined): p is string => {
  if (!p) return false;
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
};

// Bundles in a process of their own; `-e` resolves @temporalio/worker from the cwd (the repository).
const BUNDLE_SCRIPT = `
import fs from 'node:fs';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
const [options, file] = [JSON.parse(process.argv[1]), process.argv[2]];
const { code } = await bundleWorkflowCode({ ...options, logger: new DefaultLogger('ERROR') });
fs.writeFileSync(file + '.partial', code);
fs.renameSync(file + '.partial', file);
`;

function buildBundle(options: SharedBundleOptions, file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', BUNDLE_SCRIPT, JSON.stringify(options), file], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => void (stderr = (stderr + c.toString()).slice(-8_000)));
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve(file) : reject(new Error(`bundling ${options.workflowsPath} failed (${signal ?? code}): ${stderr.trim()}`))));
  });
}

export async function startSharedTemporal(): Promise<() => Promise<void>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spend-auth-shared-temporal-'));
  const cli = process.env.TEMPORAL_ADDRESS?.trim() ? undefined : process.env.TEMPORAL_CLI_PATH?.trim();
  let server: Promise<DevServer> | undefined;
  const bundles = new Map<string, Promise<string>>();

  const devServer = (): Promise<DevServer> =>
    (server ??= startDevServer({
      cliPath: cli!,
      onUnexpectedExit: ({ code, signal, output }) => {
        // Files already on it fail on their own; a later file gets a new one.
        console.log(`[tests] the shared Temporal dev server exited (${signal ?? code}); its last output: ${output.trim().split('\n').slice(-5).join(' | ')}`);
        server = undefined;
      },
    }).catch((err) => {
      // The file that asked fails, as it would have on its own server; the next one tries again.
      server = undefined;
      throw err;
    }));

  const answer = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const broker = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        if (req.method === 'GET' && req.url === '/server') {
          if (!isExecutableFile(cli)) return answer(res, 404, { error: 'no shared dev server in this run' });
          return answer(res, 200, { address: (await devServer()).address });
        }
        if (req.method === 'POST' && req.url === '/bundle') {
          const options = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SharedBundleOptions;
          const key = JSON.stringify(options);
          const file = path.join(dir, `bundle-${createHash('sha256').update(key).digest('hex').slice(0, 16)}.js`);
          let built = bundles.get(key);
          if (!built) {
            built = buildBundle(options, file);
            bundles.set(key, built);
            // A failed build (a forbidden import) fails every file that asks, as its own would have.
          }
          return answer(res, 200, { file: await built });
        }
        answer(res, 404, { error: `no ${req.method} ${req.url}` });
      } catch (err) {
        answer(res, 500, { error: (err as Error).message });
      }
    });
  });
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
  process.env[SHARED_TEMPORAL_ENV] = `http://127.0.0.1:${(broker.address() as AddressInfo).port}`;

  return async () => {
    delete process.env[SHARED_TEMPORAL_ENV];
    broker.closeAllConnections();
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    const running = await server?.catch(() => undefined);
    await running?.stop();
    await Promise.allSettled(bundles.values());
    fs.rmSync(dir, { recursive: true, force: true });
  };
}

/** A request to the run's broker: its JSON answer, or undefined when this process has none (a run without the global setup). */
function ask(pathname: string, body?: unknown): Promise<{ status: number; json: Record<string, string> } | undefined> {
  const base = process.env[SHARED_TEMPORAL_ENV];
  if (!base) return Promise.resolve(undefined);
  // node:http rather than fetch: a dev server start under load may take longer than fetch's header timeout.
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(pathname, base), { method: body === undefined ? 'GET' : 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

let sharedAddress: Promise<string | undefined> | undefined;
/** The run's dev server's address, started if it is not yet; undefined where the run has none to share. */
export function sharedDevServerAddress(): Promise<string | undefined> {
  return (sharedAddress ??= ask('/server').then((r) => {
    if (!r || r.status === 404) return undefined;
    if (r.status !== 200) throw new Error(`the shared Temporal dev server did not start: ${r.json.error}`);
    return r.json.address;
  }).catch((err) => {
    sharedAddress = undefined;
    throw err;
  }));
}

/**
 * `bundleWorkflowCode` of the options (quiet): of the service's workflows, the run's one build
 * (the same options give the same code); of other sources, or without a broker, bundled here.
 */
export async function sharedWorkflowBundle(options: SharedBundleOptions): Promise<WorkflowBundle> {
  const answer = options.workflowsPath === SHARED_WORKFLOWS_PATH ? await ask('/bundle', options) : undefined;
  if (answer) {
    if (answer.status !== 200) throw new Error(answer.json.error);
    return { code: fs.readFileSync(answer.json.file!, 'utf8') };
  }
  const { bundleWorkflowCode, DefaultLogger } = await import('@temporalio/worker');
  return bundleWorkflowCode({ ...options, logger: new DefaultLogger('ERROR') });
}
