/**
 * A worker in a process of its own, for tests that kill it (SIGKILL) while holds wait:
 *   node --import tsx test/support/worker-process.ts
 * with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and TEMPORAL_TASK_QUEUE (the test's stack's) and, on
 * PostgreSQL, WORKER_DATABASE_URL (the test's database). On the
 * embedded database a second process cannot open the test's PGlite, so this worker gets an empty
 * in-memory one of its own: it is killed while its holds wait on their timers, before any activity
 * would need the test's rows. Prints "ready" once the worker polls.
 */
import { connectDatabase } from '../../src/db/connect.js';
import { openEmbeddedDatabase } from './embedded-template.js';
import { useTestAuditKey } from './server-keys.js';
import { createLogger } from '../../src/kernel/logger.js';
import { startWorker } from '../../src/temporal/worker.js';
import { generatePrivateJwk, keysFromJwks } from '../../src/tokens/signing-keys.js';

// Agrees with the test process on the audit key, should this worker ever write a record.
useTestAuditKey();
const address = process.env.TEMPORAL_ADDRESS;
if (!address) throw new Error('TEMPORAL_ADDRESS is required');
const url = process.env.WORKER_DATABASE_URL;
const database = url ? await connectDatabase({ databaseUrl: url, poolSize: 2 }) : await openEmbeddedDatabase();
const signer = { issuer: 'spend-auth-test', keys: await keysFromJwks([await generatePrivateJwk()]) };
const log = createLogger('silent');
await startWorker(
  { address, namespace: process.env.TEMPORAL_NAMESPACE || 'default', taskQueue: process.env.TEMPORAL_TASK_QUEUE || 'spend-authorization' },
  { db: database.db, signer, allowPrivateUrls: true, log },
  log,
);
process.stdout.write('ready\n');
