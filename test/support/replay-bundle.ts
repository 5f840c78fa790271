/**
 * Workflow bundles for replay tests, also under mutation testing (docs/testing.md).
 *
 * Stryker compiles every mutant of a file into it at once and chooses the live one through
 * `globalThis.__stryker__.activeMutant`, which its vitest setup sets in the test process. Workflow
 * code runs in its own V8 context, whose `globalThis` has no `__stryker__` (and no `process` whose
 * environment the mutated code would read instead), so there every mutant would stay switched off
 * and survive. Under Stryker, this gives the sandbox the test process's choice: the bundle ends
 * by defining `__stryker__` there, holding the active mutant. The SDK deep-freezes every global
 * the bundle leaves behind, and the mutated code writes coverage counts into the object it finds
 * at `__stryker__.mutantCoverage`: a getter hands out a fresh one (the counts are not used, as
 * they could not reach Stryker from the sandbox anyway).
 *
 * The mutated sources do not change during a Stryker run (only the active mutant does), so a
 * bundle is built once per run and kept on disk; each mutant's test run only appends its choice.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, type BundleOptions, type WorkflowBundle } from '@temporalio/worker';
import { sharedWorkflowBundle } from './shared-temporal.js';

interface StrykerNamespace {
  activeMutant?: string | number;
}

const strykerNamespace = (): StrykerNamespace | undefined => (globalThis as { __stryker__?: StrykerNamespace }).__stryker__;

/** Code the workflow context runs when it loads the bundle: the mutant this test run has switched on, if any. */
export function activationPrologue(activeMutant: string | number | undefined): string {
  const active = activeMutant === undefined ? '' : `activeMutant: ${JSON.stringify(activeMutant)}, `;
  // Each read of mutantCoverage gives a fresh object: the SDK freezes the namespace with the other
  // globals, and the mutated code keeps (and writes its counts into) the first object it reads.
  return `globalThis.__stryker__ = { ${active}get mutantCoverage() { return { static: {}, perTest: {} }; } };`;
}

type ReplayBundleOptions = Omit<BundleOptions, 'logger'>;

/** Options the run's shared build takes (plain JSON; test/support/shared-temporal.ts). */
const SHAREABLE = new Set(['workflowsPath', 'workflowInterceptorModules']);

/** `bundleWorkflowCode`, quiet (the run's one build where it has one); under Stryker, cached for the run and carrying its active mutant. */
export async function bundleForReplay(options: ReplayBundleOptions): Promise<WorkflowBundle> {
  const ns = strykerNamespace();
  if (!ns && Object.keys(options).every((k) => SHAREABLE.has(k))) return sharedWorkflowBundle(options);
  if (!ns) return bundleWorkflowCode({ ...options, logger: new DefaultLogger('ERROR') });
  // The key names the sandbox (the paths are absolute in it), so another run never reads this one's bundle.
  const key = createHash('sha256').update(JSON.stringify(options)).digest('hex').slice(0, 24);
  const file = path.join(os.tmpdir(), 'spend-auth-mutation-bundles', `${key}.js`);
  let code: string;
  if (fs.existsSync(file)) {
    code = fs.readFileSync(file, 'utf8');
  } else {
    ({ code } = await bundleWorkflowCode({ ...options, logger: new DefaultLogger('ERROR') }));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}`;
    fs.writeFileSync(partial, code);
    fs.renameSync(partial, file);
  }
  return { code: withPrologue(code, activationPrologue(ns.activeMutant)) };
}

/**
 * The bundle with `line` at its end: it still runs when the context loads the bundle, before any
 * workflow module, and the bundle's first line and line numbers stay as they were. Before the
 * inline source map, which ends the bundle: the SDK cuts the code there.
 */
export function withPrologue(code: string, line: string): string {
  const map = code.lastIndexOf('//# sourceMappingURL=data:');
  if (map < 0) throw new Error('the workflow bundle has no inline source map');
  return `${code.slice(0, map)}${line}\n${code.slice(map)}`;
}
