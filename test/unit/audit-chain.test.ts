import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, test, vi } from 'vitest';
import { ChainVerifier, GENESIS_HASH, canonicalJson, chainHash, recordMac, type ChainedFields } from '../../src/audit/audit-chain.js';

const key = randomBytes(32);

type Row = ChainedFields & { prev_hash: string; hash: string; mac: string };

/** A sealed chain of n records with every field set, so that changing any one of them matters. */
function chain(n: number): Row[] {
  const rows: Row[] = [];
  let prev = GENESIS_HASH;
  for (let sequence = 1; sequence <= n; sequence += 1) {
    const fields: ChainedFields = {
      id: `aud_${sequence}`,
      account_id: 'acct_1',
      livemode: true,
      sequence,
      type: 'authorize.approved',
      actor_type: 'api_key',
      actor_id: 'key_1',
      agent_id: 'agt_1',
      decision_id: `dec_${sequence}`,
      decision: 'approved',
      amount: 1_000 * sequence,
      currency: 'USD',
      vendor: 'shop.example',
      category: 'saas',
      policy_id: 'pol_1',
      reason: 'within_policy',
      metadata: { note: 'n', nested: { level: 2 } },
      created_at: new Date(Date.UTC(2026, 10, 23, 12, 0, sequence)),
    };
    const mac = recordMac(key, fields);
    const hash = chainHash(key, prev, sequence, mac);
    rows.push({ ...fields, prev_hash: prev, hash, mac });
    prev = hash;
  }
  return rows;
}

type Head = { sequence: number; head_hash: string } | undefined;

/** Verifies against `storedHead`, by default the head the rows themselves end at. */
function verify(rows: Row[], ...storedHead: [Head] | []) {
  const v = new ChainVerifier(key);
  for (const row of rows) v.push(row);
  const last = rows.at(-1);
  return v.result(storedHead.length > 0 ? storedHead[0] : last ? { sequence: last.sequence, head_hash: last.hash } : undefined);
}

/** A different value of the same type for each field a record carries. */
const changed: { [K in keyof Row]: (v: Row[K]) => Row[K] } = {
  id: (v) => `${v}x`,
  account_id: () => 'acct_2',
  livemode: (v) => !v,
  sequence: (v) => v + 1,
  type: () => 'authorize.denied',
  actor_type: () => 'reviewer',
  actor_id: () => 'key_2',
  agent_id: () => 'agt_2',
  decision_id: () => 'dec_other',
  decision: () => 'denied',
  amount: (v) => (v ?? 0) + 1,
  currency: () => 'EUR',
  vendor: () => 'other.example',
  category: () => 'travel',
  policy_id: () => 'pol_2',
  reason: () => 'other',
  signed_by: (v) => (v ? null : 'x'.repeat(43)),
  metadata: () => ({ note: 'n', nested: { level: 3 } }),
  created_at: (v) => new Date(v.getTime() + 1),
  prev_hash: (v) => `${v.slice(0, -1)}${v.endsWith('0') ? '1' : '0'}`,
  hash: (v) => `${v.slice(0, -1)}${v.endsWith('0') ? '1' : '0'}`,
  mac: (v) => `${v.slice(0, -1)}${v.endsWith('0') ? '1' : '0'}`,
};

describe('ChainVerifier', () => {
  test('an untouched chain verifies, with its head and no first_invalid', () => {
    const rows = chain(4);
    expect(verify(rows)).toEqual({ valid: true, records: 4, head_hash: rows[3]!.hash, first_invalid: null, first_invalid_sequence: null });
    expect(verify([], undefined)).toEqual({ valid: true, records: 0, head_hash: GENESIS_HASH, first_invalid: null, first_invalid_sequence: null });
  });

  test.each(Object.keys(changed) as (keyof Row)[])('changing %s of the third record fails verification at that record', (field) => {
    const rows = chain(5);
    const copy = rows.map((r) => ({ ...r }));
    (copy[2] as Record<string, unknown>)[field] = (changed[field] as (v: unknown) => unknown)(rows[2]![field]);
    const result = verify(copy, { sequence: 5, head_hash: rows[4]!.hash });
    expect(result).toMatchObject({ valid: false, records: 5, head_hash: rows[1]!.hash, first_invalid: { id: copy[2]!.id, sequence: copy[2]!.sequence } });
  });

  test('a record dropped from the middle fails at the record after it', () => {
    const rows = chain(5);
    const copy = rows.filter((_, i) => i !== 2);
    expect(verify(copy, { sequence: 5, head_hash: rows[4]!.hash })).toMatchObject({ valid: false, head_hash: rows[1]!.hash, first_invalid: { id: 'aud_4', sequence: 4 } });
  });

  test('a record dropped from the middle and the rest renumbered still fails at the record after it', () => {
    const rows = chain(5);
    const copy = rows.filter((_, i) => i !== 2).map((r, i) => ({ ...r, sequence: i + 1 }));
    expect(verify(copy, { sequence: 4, head_hash: rows[4]!.hash })).toMatchObject({ valid: false, first_invalid: { id: 'aud_4', sequence: 3 } });
  });

  test('two records swapped fail at the first of them, also when their sequences are swapped back', () => {
    const rows = chain(5);
    const swapped = [rows[0]!, rows[2]!, rows[1]!, rows[3]!, rows[4]!];
    expect(verify(swapped, { sequence: 5, head_hash: rows[4]!.hash })).toMatchObject({ valid: false, first_invalid: { id: 'aud_3', sequence: 3 } });
    const renumbered = swapped.map((r, i) => ({ ...r, sequence: i + 1 }));
    expect(verify(renumbered, { sequence: 5, head_hash: rows[4]!.hash })).toMatchObject({ valid: false, first_invalid: { id: 'aud_3', sequence: 2 } });
  });

  test('a record whose prev_hash names another link fails even when its own hash is recomputed over that link', () => {
    const rows = chain(3);
    const copy = rows.map((r) => ({ ...r }));
    copy[1]!.prev_hash = GENESIS_HASH;
    copy[1]!.hash = chainHash(key, GENESIS_HASH, 2, copy[1]!.mac);
    expect(verify(copy, { sequence: 3, head_hash: rows[2]!.hash })).toMatchObject({ valid: false, first_invalid: { id: 'aud_2', sequence: 2 } });
  });

  test('records removed from the end: every record verifies but the stored head disagrees, so the last record is named', () => {
    const rows = chain(5);
    expect(verify(rows.slice(0, 3), { sequence: 5, head_hash: rows[4]!.hash })).toMatchObject({ valid: false, records: 3, head_hash: rows[2]!.hash, first_invalid: { id: 'aud_3', sequence: 3 }, first_invalid_sequence: 3 });
    expect(verify([], { sequence: 2, head_hash: rows[1]!.hash })).toMatchObject({ valid: false, records: 0, first_invalid: null, first_invalid_sequence: 2 });
    expect(verify(rows.slice(0, 3), { sequence: 3, head_hash: rows[4]!.hash })).toMatchObject({ valid: false, first_invalid: { id: 'aud_3' } });
  });

  test('a stored head whose hash matches but whose sequence does not is refused', () => {
    const rows = chain(3);
    expect(verify(rows, { sequence: 4, head_hash: rows[2]!.hash })).toMatchObject({ valid: false, first_invalid: { id: 'aud_3', sequence: 3 } });
  });

  test('records without any stored head (the head row deleted) are refused', () => {
    const rows = chain(2);
    expect(verify(rows, undefined)).toMatchObject({ valid: false, records: 2, first_invalid: { id: 'aud_2', sequence: 2 } });
  });

  test('a chain sealed with another key does not verify', () => {
    const rows = chain(2);
    const v = new ChainVerifier(randomBytes(32));
    for (const r of rows) v.push(r);
    expect(v.result({ sequence: 2, head_hash: rows[1]!.hash })).toMatchObject({ valid: false, first_invalid: { id: 'aud_1', sequence: 1 } });
  });

  test('signed_by is covered when set: added, removed or changed, the MAC changes; null is no signer, as absent', () => {
    const { sequence: _, prev_hash: __, hash: ___, mac: ____, ...unsigned } = chain(1)[0]!;
    const thumbprint = 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U';
    const signed = { ...unsigned, signed_by: thumbprint };
    expect(recordMac(key, signed)).not.toBe(recordMac(key, unsigned));
    expect(recordMac(key, signed)).not.toBe(recordMac(key, { ...signed, signed_by: 'ydQXMtvbsOsZyFir-Y7A8t7fKEM1gbKPvyFkdpu4fvI' }));
    expect(recordMac(key, { ...unsigned, signed_by: null })).toBe(recordMac(key, unsigned));
    // A record written under a signature verifies in its chain, and fails once its signer is taken away.
    const mac = recordMac(key, signed);
    const row = { ...signed, sequence: 1, prev_hash: GENESIS_HASH, mac, hash: chainHash(key, GENESIS_HASH, 1, mac) };
    expect(verify([row])).toMatchObject({ valid: true });
    expect(verify([{ ...row, signed_by: null }], { sequence: 1, head_hash: row.hash })).toMatchObject({ valid: false, first_invalid: { id: row.id } });
  });

  test('a null amount is covered as null, distinct from zero', () => {
    const base = { ...chain(1)[0]!, amount: null };
    expect(recordMac(key, base)).not.toBe(recordMac(key, { ...base, amount: 0 }));
  });
});

describe('canonicalJson', () => {
  test('sorts keys at every depth, drops undefined, keeps array order, writes dates as ISO strings', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: undefined, b: null } })).toBe('{"a":{"b":null,"d":[2,1]},"b":1}');
    expect(canonicalJson(new Date(Date.UTC(2026, 0, 1)))).toBe('"2026-01-01T00:00:00.000Z"');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson('x')).toBe('"x"');
  });
});

describe('the stored format (chains already written must keep verifying)', () => {
  const hmac = (text: string) => createHmac('sha256', key).update(text).digest('hex');

  test('hash = HMAC("link", prev_hash, sequence, mac); an unsealed row (no mac) links over an empty mac', () => {
    expect(chainHash(key, GENESIS_HASH, 7, 'ab'.repeat(32))).toBe(hmac(`link\n${GENESIS_HASH}\n7\n${'ab'.repeat(32)}`));
    expect(chainHash(key, GENESIS_HASH, 7, null)).toBe(hmac(`link\n${GENESIS_HASH}\n7\n`));
  });

  test('mac = HMAC("record", canonical JSON of the content without sequence)', () => {
    const { sequence: _, prev_hash: __, hash: ___, mac: ____, ...content } = chain(1)[0]!;
    expect(recordMac(key, content)).toBe(hmac(`record\n${canonicalJson({ ...content, created_at: content.created_at.toISOString() })}`));
  });

  test('a record without a signer (as every record written before signed_by) keeps its MAC; a signer is one more key of the content', () => {
    const { sequence: _, prev_hash: __, hash: ___, mac: ____, ...content } = chain(1)[0]!;
    // The content as it was canonicalized before signed_by existed: no such key at all.
    const before = hmac(`record\n${canonicalJson({ ...content, created_at: content.created_at.toISOString() })}`);
    expect(recordMac(key, { ...content, signed_by: null })).toBe(before);
    expect(recordMac(key, { ...content, signed_by: undefined })).toBe(before);
    const thumbprint = 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U';
    expect(recordMac(key, { ...content, signed_by: thumbprint })).toBe(hmac(`record\n${canonicalJson({ ...content, created_at: content.created_at.toISOString(), signed_by: thumbprint })}`));
  });
});

describe('the process-wide audit key', () => {
  test('using the audit log before the key is loaded throws, naming AUDIT_HMAC_KEY; once loaded it is the key', async () => {
    vi.resetModules();
    const fresh = await import('../../src/kernel/audit-key.js');
    expect(fresh.isAuditHmacKeyLoaded()).toBe(false);
    expect(() => fresh.auditHmacKey()).toThrow('The audit HMAC key (AUDIT_HMAC_KEY) was not loaded before the audit log was used.');
    fresh.useAuditHmacKey(key);
    expect(fresh.isAuditHmacKeyLoaded()).toBe(true);
    expect(fresh.auditHmacKey()).toBe(key);
  });
});
