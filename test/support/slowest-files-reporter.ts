/**
 * Prints the 15 slowest test files of the run, each with its time split into import (the file and
 * what it loads), setup files and tests: CI prints it for each suite so that what grew is seen at
 * once (docs/testing.md, "Keeping CI under budget").
 */
import type { Reporter, TestModule } from 'vitest/node';

const SHOWN = 15;

interface FileTime {
  file: string;
  total: number;
  imported: number;
  setup: number;
  tests: number;
}

export default class SlowestFilesReporter implements Reporter {
  private root = process.cwd();

  onInit(vitest: { config: { root: string } }): void {
    this.root = vitest.config.root;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const times: FileTime[] = modules.map((m) => {
      const d = m.diagnostic();
      const imported = d.collectDuration + d.prepareDuration + d.environmentSetupDuration;
      return { file: m.relativeModuleId ?? m.moduleId.replace(`${this.root}/`, ''), total: imported + d.setupDuration + d.duration, imported, setup: d.setupDuration, tests: d.duration };
    });
    if (times.length === 0) return;
    times.sort((a, b) => b.total - a.total);
    const s = (ms: number) => (ms / 1000).toFixed(1).padStart(7);
    const sum = times.reduce((t, f) => t + f.total, 0);
    const lines = [`\n[tests] the ${Math.min(SHOWN, times.length)} slowest of ${times.length} test files (seconds: total = import + setup + tests; all files: ${(sum / 1000).toFixed(0)} s of worker time)`];
    for (const f of times.slice(0, SHOWN)) lines.push(`${s(f.total)} = ${s(f.imported)} + ${s(f.setup)} + ${s(f.tests)}  ${f.file}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
