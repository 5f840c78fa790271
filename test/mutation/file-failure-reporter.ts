/**
 * Mutation runs only (vitest.mutation.config.ts). A mutant that breaks what a test file builds in
 * its beforeAll (the app, say) makes vitest fail the file and mark each of its tests skipped;
 * StrykerJS 9.6.1 reads skipped tests as not run and counts the mutant as survived, although a
 * plain vitest run fails. This reports those tests as failed, with the file's error.
 */
import type { Reporter, TestModule } from 'vitest/node';

interface Task {
  type: string;
  mode: string;
  tasks?: Task[];
  result?: { state?: string; errors?: unknown[] };
}

export default class FileFailureReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    for (const module of testModules) {
      // The task behind the module: the object StrykerJS reads the results from (not in vitest's public types).
      const file = (module as unknown as { task: Task }).task;
      if (file.result?.state !== 'fail') continue;
      const failAll = (t: Task): void => {
        for (const c of t.tasks ?? []) {
          if (c.type === 'test' && c.result?.state === 'skip') {
            c.mode = 'run';
            c.result = { ...c.result, state: 'fail', errors: file.result?.errors ?? [] };
          }
          failAll(c);
        }
      };
      failAll(file);
    }
  }
}
