// Bundles the workflows ahead of time (production images), so workers start without webpack.
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_BUNDLE_PATH, WORKFLOWS_PATH } from '../src/temporal/worker.js';

const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH });
fs.mkdirSync(path.dirname(WORKFLOW_BUNDLE_PATH), { recursive: true });
fs.writeFileSync(WORKFLOW_BUNDLE_PATH, code);
console.log(`workflow bundle written to ${WORKFLOW_BUNDLE_PATH} (${code.length} bytes)`);
