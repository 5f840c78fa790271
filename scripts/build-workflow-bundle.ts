// Bundles the workflows ahead of time (production images), so workers start without webpack:
// one bundle as is, one with the tracing interceptors (run when OTEL_EXPORTER_OTLP_ENDPOINT is set).
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_BUNDLE_PATH, WORKFLOW_TRACED_BUNDLE_PATH, WORKFLOWS_PATH, workflowBundleOptions } from '../src/temporal/worker.js';

for (const [bundlePath, traced] of [[WORKFLOW_BUNDLE_PATH, false], [WORKFLOW_TRACED_BUNDLE_PATH, true]] as const) {
  const { code } = await bundleWorkflowCode(workflowBundleOptions(WORKFLOWS_PATH, traced));
  fs.mkdirSync(path.dirname(bundlePath), { recursive: true });
  fs.writeFileSync(bundlePath, code);
  console.log(`workflow bundle written to ${bundlePath} (${code.length} bytes)`);
}
