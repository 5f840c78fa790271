/** What an operator reads about a hold in the Temporal UI: the static summary, the details and the memo. */
import { describe, expect, test } from 'vitest';
import type { DecisionRow } from '../../src/decisions/decision.view.js';
import { heldDetails, heldMemo, heldSummary, markdownText, shortUtc } from '../../src/temporal/hold-metadata.js';

const hold = (over: Partial<DecisionRow> = {}): DecisionRow =>
  ({
    id: 'dec_01',
    agent_id: 'agt_7Q',
    policy_id: 'pol_9Z',
    amount: 8_200,
    currency: 'USD',
    vendor: 'aws.amazon.com',
    category: 'cloud',
    livemode: false,
    reason: 'Amount 82.00 USD is above the approval threshold of 50.00 USD.',
    reason_code: 'approval_required',
    approvals_required: 1,
    created_at: new Date('2026-11-22T14:00:00Z'),
    expires_at: new Date('2026-11-25T14:00:00Z'),
    ...over,
  }) as DecisionRow;

describe('the static summary', () => {
  test('reads "<amount> at <vendor> for <agent name> (<agent id>), expires <day month hh:mm> UTC"', () => {
    expect(heldSummary(hold(), { agentName: 'research-bot' })).toBe('82.00 USD at aws.amazon.com for research-bot (agt_7Q), expires 25 Nov 14:00 UTC');
  });

  test('without a name (agent not found) it names the agent by id', () => {
    expect(heldSummary(hold(), {})).toBe('82.00 USD at aws.amazon.com for agt_7Q, expires 25 Nov 14:00 UTC');
  });

  test.each([
    [new Date('2026-01-05T03:07:00Z'), '5 Jan 03:07 UTC'],
    [new Date('2026-12-31T23:59:59Z'), '31 Dec 23:59 UTC'],
  ])('%s is written %s', (at, text) => {
    expect(shortUtc(at)).toBe(text);
  });

  test('long names are cut, so the summary stays one short line', () => {
    const summary = heldSummary(hold({ vendor: 'v'.repeat(255) }), { agentName: 'a'.repeat(300) });
    expect(summary.length).toBeLessThanOrEqual(200);
    expect(summary).toContain('…');
    expect(summary).not.toContain('\n');
  });
});

describe('the static details and the memo', () => {
  test('the details give the request, the agent, the reason, the policy and the expiry, one per paragraph', () => {
    const details = heldDetails(hold({ approvals_required: 2 }), { agentName: 'research-bot', policyName: 'Research agents' });
    expect(details.split('\n\n')).toEqual([
      '**Request:** 82.00 USD at aws.amazon.com (cloud), test mode',
      '**Agent:** research-bot (`agt_7Q`)',
      '**Reason:** Amount 82.00 USD is above the approval threshold of 50.00 USD. (`approval_required`)',
      '**Policy:** Research agents (`pol_9Z`)',
      '**Expires:** 2026-11-25T14:00:00.000Z',
      '**Approvals needed:** 2',
      '**Decision:** `dec_01`',
    ]);
  });

  test('the memo names the agent by name and by id', () => {
    expect(heldMemo(hold(), { agentName: 'research-bot', policyName: 'Research agents' })).toEqual({
      summary: '82.00 USD at aws.amazon.com for research-bot (agt_7Q), expires 25 Nov 14:00 UTC',
      agentId: 'agt_7Q',
      agentName: 'research-bot',
      policyId: 'pol_9Z',
      policyName: 'Research agents',
      reason: 'Amount 82.00 USD is above the approval threshold of 50.00 USD.',
      expiresAt: '2026-11-25T14:00:00.000Z',
    });
  });

  test('markdownText flattens control characters and escapes what markdown acts on', () => {
    expect(markdownText('a\nb\tc', 100)).toBe('a b c');
    expect(markdownText('[x](y) ![i](j) <b> `c` *e* _u_ | # ~ {}', 100)).toBe('\\[x\\]\\(y\\) \\!\\[i\\]\\(j\\) \\<b\\> \\`c\\` \\*e\\* \\_u\\_ \\| \\# \\~ \\{\\}');
  });
});
