/**
 * Attack: text a tenant controls (the agent's name and its policy's name, set with an admin key;
 * the vendor and category an agent key sends to authorize) carries markdown or HTML, so that the
 * held workflow's summary and details in the operators' Temporal UI show a link to click, an image
 * that calls out, or a forged line ("Approved by: security team").
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findHoldNames } from '../../src/approvals/approvals.repository.js';
import { findDecisionById } from '../../src/decisions/decisions.repository.js';
import { heldDetails, heldSummary } from '../../src/temporal/hold-metadata.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext();
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

const LINK = '[click to approve](https://attacker.example/approve)';
const IMAGE = '![](https://attacker.example/pixel.png)';
const HTML = '<img src=x onerror=alert(1)>';
const FORGED = '\n\n**Approved by:** security team';

describe('markdown and HTML in tenant text never reach the Temporal UI active', () => {
  test('agent name, policy name, vendor and category are shown escaped, on their own line', async () => {
    const policy = await acct.test.post('/v1/policies', policyBody({ name: `Policy ${LINK}`, require_approval_above: 100 }));
    expect(policy.status).toBe(201);
    const agent = await acct.test.post('/v1/agents', { name: `bot ${IMAGE}${FORGED}`, policy_id: policy.body.id });
    expect(agent.status).toBe(201);
    const key = await acct.test.post('/v1/api-keys', { name: 'agent', role: 'agent', agent_id: agent.body.id });
    const agentKey = ctx.client(key.body.key);
    const held = await agentKey.post('/v1/authorize', { agent_id: agent.body.id, amount: 900, currency: 'USD', vendor: `shop.example ${HTML} ${LINK}`, category: 'x_y*z' });
    expect(held.body.status).toBe('pending');

    const decision = (await findDecisionById(ctx.database.db, held.body.decision_id))!;
    const names = await findHoldNames(ctx.database.db, decision);
    const summary = heldSummary(decision, names);
    const details = heldDetails(decision, names);
    for (const text of [summary, details]) {
      expect(text).not.toContain('](https://attacker');
      expect(text).not.toContain('![');
      expect(text).not.toMatch(/(^|[^\\])<img/);
      expect(text).not.toMatch(/(^|[^\\])\[click/);
    }
    expect(summary).not.toContain('\n');
    // Still readable: the text is there, escaped.
    expect(details).toContain('\\<img src=x onerror=alert\\(1\\)\\>');
    expect(details).toContain('\\[click to approve\\]\\(https://attacker.example/approve\\)');
    expect(details).toContain('x\\_y\\*z');
    // No line of the attacker's: the forged "Approved by" stays inside the agent's paragraph.
    const paragraphs = details.split('\n\n');
    expect(paragraphs.map((p) => p.split(':**')[0])).toEqual(['**Request', '**Agent', '**Reason', '**Policy', '**Expires', '**Decision']);
    expect(paragraphs[1]).toContain('\\*\\*Approved by:\\*\\* security team');
    expect(details.split('\n').filter((l) => l.startsWith('**Approved'))).toEqual([]);
  });
});
