/**
 * Migration 015 on a database with decisions made before captures existed: an earlier approval
 * becomes `uncaptured` without a deadline (the sweep never releases it on its own, since its rail
 * may have charged it), denied ones get no capture at all, and approvals made afterwards get their
 * deadline from the database trigger when no code set it.
 */
import { sql } from 'kysely';
import { describe, expect, test } from 'vitest';
import { expireUncapturedApprovals } from '../../src/capture/capture.service.js';
import { connectDatabase } from '../../src/db/connect.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { createScratchDatabase } from '../support/context.js';
import { useTestAuditKey } from '../support/server-keys.js';

describe('migration 015 and decisions made before it', () => {
  test('earlier approvals are uncaptured with no deadline and never swept; later approvals written without capture fields get one', async () => {
    useTestAuditKey();
    const url = process.env.DATABASE_URL;
    const scratch = url ? await createScratchDatabase(url) : undefined;
    const database = await connectDatabase(scratch ? { databaseUrl: scratch.url, poolSize: 2 } : { dataDir: 'memory://' });
    try {
      const db = database.db;
      await migrateTo(db, '014_outbox_dead_letter');
      const at = new Date('2026-10-01T12:00:00Z');
      await sql`INSERT INTO accounts (id, name, plan) VALUES ('acct_old', 'old', 'growth')`.execute(db);
      await sql`INSERT INTO policies (id, account_id, livemode, name, budget_monthly, budget_single_max, created_at, updated_at)
                VALUES ('pol_old', 'acct_old', false, 'old', 100000, 10000, ${at}, ${at})`.execute(db);
      await sql`INSERT INTO agents (id, account_id, livemode, name, policy_id) VALUES ('agt_old', 'acct_old', false, 'old', 'pol_old')`.execute(db);
      const decision = (id: string, outcome: 'approved' | 'denied') =>
        sql`INSERT INTO decisions (id, account_id, livemode, agent_id, policy_id, amount, currency, vendor, decision, original_decision, status, spend_month, spend_day, resolved_at, created_at, updated_at)
            VALUES (${id}, 'acct_old', false, 'agt_old', 'pol_old', 500, 'USD', 'shop.example', ${outcome}, ${outcome}, ${outcome}, 'M:2026-10', 'D:2026-10-01', ${at}, ${at}, ${at})`.execute(db);
      await decision('dec_oldapproved', 'approved');
      await decision('dec_olddenied', 'denied');

      await migrateToLatest(db);
      const read = (id: string) => db.selectFrom('decisions').select(['capture_status', 'capture_expires_at']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(await read('dec_oldapproved')).toEqual({ capture_status: 'uncaptured', capture_expires_at: null });
      expect(await read('dec_olddenied')).toEqual({ capture_status: null, capture_expires_at: null });
      const swept = await expireUncapturedApprovals({ db, now: () => new Date('2030-01-01T00:00:00Z') });
      expect(swept.expired).not.toContain('dec_oldapproved');

      // A row that becomes approved without capture fields (any path to an approval) gets them from the trigger.
      await sql`UPDATE policies SET capture_window_seconds = 3600 WHERE id = 'pol_old'`.execute(db);
      await decision('dec_newapproved', 'approved');
      expect(await read('dec_newapproved')).toEqual({ capture_status: 'uncaptured', capture_expires_at: new Date(at.getTime() + 3_600_000) });
      await decision('dec_newdenied', 'denied');
      const later = new Date('2026-10-02T00:00:00Z');
      await db.updateTable('decisions').set({ decision: 'approved', status: 'approved', resolved_at: later, updated_at: later }).where('id', '=', 'dec_newdenied').execute();
      expect(await read('dec_newdenied')).toEqual({ capture_status: 'uncaptured', capture_expires_at: new Date(later.getTime() + 3_600_000) });
    } finally {
      await database.close();
      await scratch?.drop();
    }
  }, 60_000);
});
