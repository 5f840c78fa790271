import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { dependsOnStorage, reachesDatabase as reaches, storageReasons, testFiles } from '../support/storage-rule.js';

// The rule that places each test file on one database or on both (docs/testing.md).

describe('which test files run on both databases', () => {
  test('pure logic runs once, whatever it is about', () => {
    expect(storageReasons("import { money } from '../../src/kernel/money.js';\ntest('adds', () => expect(1).toBe(1));")).toEqual([]);
    // Words about storage in a file that opens no database change nothing.
    expect(storageReasons("test('the outbox row shape, the audit chain, idempotency', () => {});")).toEqual([]);
  });

  test('a file that reaches a database and exercises storage runs on both, with the reasons named', () => {
    const ctx = "import { createTestContext } from '../support/context.js';\n";
    expect(storageReasons(`${ctx}await Promise.all([a.post('/v1/authorize', x), a.post('/v1/authorize', x)]);`)).toEqual(['requests at once']);
    expect(storageReasons(`${ctx}await ctx.database.db.updateTable('decisions').set({ x: 1 }).execute();`)).toEqual(['transactions, locks and rows behind the API']);
    expect(storageReasons(`${ctx}await migrateToLatest(db);`)).toEqual(['migrations']);
    expect(storageReasons(`${ctx}headers: { 'Idempotency-Key': 'k' }`)).toEqual(['idempotency']);
    expect(storageReasons(`${ctx}await ctx.raw('/v1/audit-logs/verify')`)).toEqual(['the audit chain']);
    expect(storageReasons(`${ctx}new OutboxRelay({})`)).toEqual(['the outbox']);
    expect(storageReasons(`${ctx}createTestContext({ authorizeBatch: { maxSize: 8 } })`)).toEqual(['group commit']);
    // A file that reaches a database and does none of these runs once.
    expect(storageReasons(`${ctx}const res = await a.get('/v1/agents'); expect(res.status).toBe(200);`)).toEqual([]);
  });

  test("the embedded engine's own code and `npm start`'s path run on both", () => {
    expect(storageReasons("import { PGlite } from '@electric-sql/pglite';\nimport { connectDatabase } from '../../src/db/connect.js';")).toContain("the embedded engine and npm start's path");
    expect(storageReasons("spawn(process.execPath, ['bin/spend-auth.js', 'dev'])")).toContain("the embedded engine and npm start's path");
  });

  test('the files of the suite: each storage subject is on both databases, pure logic once', () => {
    const all = testFiles('test');
    const both = all.filter(dependsOnStorage);
    const reachesDatabase = (f: string) => reaches(readFileSync(f, 'utf8'));
    // Files named for a storage subject that reach a database, wherever they live, are all in.
    for (const f of all.filter((f) => /migration|outbox|group-commit|idempotency|audit|embedded|lock|concurren/.test(f) && reachesDatabase(f))) expect(both, f).toContain(f);
    for (const f of ['test/e2e/cli.test.ts', 'test/e2e/dev-engine.test.ts', 'test/api/group-commit.test.ts', 'test/api/outbox-relay.test.ts']) expect(both).toContain(f);
    // Every file that opens no database runs once.
    for (const f of all.filter((f) => !reachesDatabase(f))) expect(both).not.toContain(f);
    expect(both.length).toBeLessThan(all.length);
  });
});
