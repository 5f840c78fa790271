/**
 * scripts/vitest-counts.sh, which .ci/run sums into its closing line `tests: N passed, M failed,
 * K skipped`: vitest's closing `Tests` line read in plain text or in colour, todo counted as
 * skipped, a failed suite or an unhandled error counted as failed (a `beforeAll` that throws leaves
 * its tests skipped, and the run must not close on "0 failed"), and a log without that line (a
 * suite that crashed) refused rather than read as zero.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';

const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../scripts/vitest-counts.sh');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitest-counts-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function counts(log: string): { code: number; out: string } {
  const file = path.join(dir, `${Math.random()}.log`);
  fs.writeFileSync(file, log);
  try {
    return { code: 0, out: execFileSync('bash', [SCRIPT, file], { encoding: 'utf8' }).trim() };
  } catch (err) {
    return { code: (err as { status: number }).status, out: String((err as { stdout: string }).stdout).trim() };
  }
}

describe('reading a vitest run\'s closing counts', () => {
  test.each([
    ['all passed', ' Test Files  3 passed (3)\n      Tests  19 passed (19)\n', '19 0 0'],
    ['failed, skipped and todo', ' Test Files  1 failed | 2 passed (3)\n      Tests  1 failed | 18 passed | 2 skipped | 1 todo (22)\n', '18 1 3'],
    ['in colour', '\x1b[2m      Tests \x1b[22m \x1b[1m\x1b[31m2 failed\x1b[39m\x1b[22m\x1b[2m | \x1b[22m\x1b[1m\x1b[32m7 passed\x1b[39m\x1b[22m\x1b[90m (9)\x1b[39m\n', '7 2 0'],
    ['the last run of the log', '      Tests  1 passed (1)\nmore output\n      Tests  4 passed | 1 skipped (5)\n', '4 0 1'],
  ])('%s', (_name, log, expected) => {
    expect(counts(log)).toEqual({ code: 0, out: expected });
  });

  test('a file whose beforeAll threw counts as failed, though its tests count as skipped', () => {
    // As vitest 4 printed it when runtime-role.test.ts could not create its roles.
    const log = [
      ' RUN  v4.1.12 /repo',
      '⎯⎯⎯⎯⎯⎯ Failed Suites 1 ⎯⎯⎯⎯⎯⎯⎯',
      ' FAIL  test/security/runtime-role.test.ts > the service as a runtime role that does not own its tables',
      'error: permission denied to create role',
      ' Test Files  1 failed | 300 passed | 3 skipped (304)',
      '      Tests  4497 passed | 51 skipped (4548)',
    ].join('\n');
    expect(counts(log)).toEqual({ code: 0, out: '4497 1 51' });
  });

  test('failed suites, failed tests and unhandled errors add up; an earlier run\'s do not', () => {
    const log = [
      ' RUN  v4.1.12 /first',
      '⎯⎯ Failed Suites 5 ⎯⎯',
      '      Tests  1 passed (1)',
      ' RUN  v4.1.12 /second',
      '⎯⎯ Failed Suites 2 ⎯⎯',
      '⎯⎯ Failed Tests 1 ⎯⎯',
      ' Test Files  3 failed (3)',
      '      Tests  1 failed | 1 passed | 2 skipped (4)',
      '     Errors  1 error',
    ].join('\n');
    expect(counts(log)).toEqual({ code: 0, out: '1 4 2' });
    expect(counts('      Tests  3 passed (3)\n     Errors  2 errors\n')).toEqual({ code: 0, out: '3 2 0' });
  });

  test('a suite that stopped before its summary is refused: exit code 1, nothing printed', () => {
    expect(counts(' RUN  v4.1.12 /repo\n ✓ test/unit/a.test.ts (3 tests)\nKilled\n')).toEqual({ code: 1, out: '' });
    expect(counts('Tests are great\n')).toEqual({ code: 1, out: '' });
  });
});
