/**
 * Resolves one held decision from a process of its own, as the worker's activity does:
 * `node --import tsx test/support/resolve-held.ts <decision_id> approved|denied`, with DATABASE_URL.
 */
import { resolveHeldDecision } from '../../src/approvals/resolution.service.js';
import { connectDatabase } from '../../src/db/connect.js';
import { useTestAuditKey } from './server-keys.js';
import { generatePrivateJwk, keysFromJwks } from '../../src/tokens/signing-keys.js';

useTestAuditKey();
const [decisionId, outcome] = process.argv.slice(2);
if (!decisionId || (outcome !== 'approved' && outcome !== 'denied')) throw new Error('usage: resolve-held.ts <decision_id> approved|denied');
const database = await connectDatabase({ databaseUrl: process.env.DATABASE_URL });
try {
  const signer = { issuer: 'spend-auth-test', keys: await keysFromJwks([await generatePrivateJwk()]) };
  const { changed } = await resolveHeldDecision({ db: database.db, signer }, { decisionId, outcome, resolvedBy: 'other-process', actor: { type: 'reviewer', id: 'other-process' } });
  process.stdout.write(`${JSON.stringify({ changed })}\n`);
} finally {
  await database.close();
}
