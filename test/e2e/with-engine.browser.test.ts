/**
 * In a real browser (Debian's chromium, driven by playwright-core) with a real workflow engine:
 * the reviewer approves from our dashboard, and an operator finds a held request in the Temporal
 * Web UI of the dev server through its ApprovalStatus search attribute. Screenshots go to
 * test-artifacts/with-engine/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { heldWorkflowId } from '../../src/temporal/ids.js';
import { policyBody, type TestAccount } from '../support/context.js';
import { openEngineStack, type EngineStack } from '../support/engine-stack.js';
import { serverModeOrSkip } from '../support/temporal-server.js';
import { until } from '../support/wait.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'with-engine');
/** A held workflow's page in the Temporal UI, its summary on it (a stable path: docs and reviews point at it). */
export const SUMMARY_SCREENSHOT = path.join(ARTIFACTS, 'temporal-ui-held-workflow-summary.png');
const UI_TIMEOUT_MS = 30_000;

const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.log(`[with engine] skipped: ${CHROMIUM} not found (install Debian's chromium package)`);
const mode = hasChromium ? serverModeOrSkip('with engine') : undefined;

describe.skipIf(!mode)('the dashboard and the Temporal UI with a workflow engine', () => {
  let stack: EngineStack;
  let browser: Browser;
  let owner: TestAccount;
  let agentId: string;

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    stack = await openEngineStack(mode!, { uiPort: 0 });
    owner = await stack.ctx.account('growth');
    const policy = await owner.test.post('/v1/policies', policyBody({ require_approval_above: 1_000 }));
    agentId = (await owner.test.post('/v1/agents', { name: 'Engine bot', policy_id: policy.body.id })).body.id;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  async function held(amount: number, vendor: string): Promise<string> {
    const res = await owner.test.post('/v1/authorize', { agent_id: agentId, amount, currency: 'USD', vendor });
    expect(res.body.status).toBe('pending');
    const id = res.body.decision_id as string;
    const handle = stack.server.env.client.workflow.getHandle(heldWorkflowId(id));
    await until(`workflow of ${id} running`, async () => ((await handle.describe()).status.name === 'RUNNING' ? true : undefined));
    return id;
  }

  test('dashboard: the reviewer approves a held request; it is approved with a token and leaves the queue', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    await page.goto(`${stack.ctx.baseUrl}/dashboard#/approvals`);
    await page.getByLabel('API key').fill(owner.test.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Pending approvals' }).waitFor();

    const id = await held(4_200, 'engine.example');
    const card = page.locator(`li[data-decision-id="${id}"]`);
    await card.getByLabel('Note for 42.00 USD at engine.example (optional)').fill('expected invoice');
    await card.getByRole('button', { name: 'Approve 42.00 USD at engine.example' }).click();
    await expect.poll(() => page.getByRole('status').textContent(), { timeout: 30_000 }).toContain('Approved: 42.00 USD at engine.example');
    await card.waitFor({ state: 'detached' });
    expect(await page.getByRole('alert').textContent()).toBe('');
    const decided = (await owner.test.get(`/v1/decisions/${id}`)).body;
    expect(decided).toMatchObject({ decision: 'approved', status: 'approved' });
    expect(decided.authorization_token).toMatch(/^gca_/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-approved.png'), fullPage: true });
    await context.close();
  }, 90_000);

  test('dashboard: the first of two approvals keeps the hold queued as "1 of 2 approvals"; the second reviewer approves it', async () => {
    const policy = await owner.test.post('/v1/policies', policyBody({ require_approval_above: 1_000, approval_rules: [{ above: 5_000, approvals_required: 2 }] }));
    const quorumAgent = (await owner.test.post('/v1/agents', { name: 'Quorum bot', policy_id: policy.body.id })).body.id;
    const res = await owner.test.post('/v1/authorize', { agent_id: quorumAgent, amount: 8_000, currency: 'USD', vendor: 'two-people.example' });
    const id = res.body.decision_id as string;
    const handle = stack.server.env.client.workflow.getHandle(heldWorkflowId(id));
    await until(`workflow of ${id} running`, async () => ((await handle.describe()).status.name === 'RUNNING' ? true : undefined));

    // Two reviewer keys minted side by side: distinct approvers (the admin key that minted them and
    // either of them would count as one).
    const first = await owner.test.post('/v1/api-keys', { name: 'First reviewer', mode: 'test', role: 'reviewer' });
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    await page.goto(`${stack.ctx.baseUrl}/dashboard#/approvals`);
    await page.getByLabel('API key').fill(first.body.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const card = page.locator(`li[data-decision-id="${id}"]`);
    await card.getByLabel('Note for 80.00 USD at two-people.example (optional)').fill('first of two');
    await card.getByRole('button', { name: 'Approve 80.00 USD at two-people.example' }).click();
    await expect.poll(() => page.getByRole('status').textContent(), { timeout: 30_000 }).toContain('Approval recorded: 80.00 USD at two-people.example, 1 of 2 approvals.');
    expect(await card.locator('.approvals-count').textContent()).toBe('1 of 2 approvals');
    expect(await card.locator('.approvers').textContent()).toContain('first of two');
    expect(await card.getByRole('button', { name: 'Deny 80.00 USD at two-people.example' }).isEnabled()).toBe(true);
    expect((await owner.test.get(`/v1/decisions/${id}`)).body).toMatchObject({ status: 'pending', approvals: [{ note: 'first of two' }] });
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-one-of-two.png'), fullPage: true });

    const second = await owner.test.post('/v1/api-keys', { name: 'Second reviewer', mode: 'test', role: 'reviewer' });
    const approved = await stack.ctx.client(second.body.key).post(`/v1/approvals/${id}/approve`);
    expect(approved.body).toMatchObject({ status: 'approved' });
    await card.waitFor({ state: 'detached' });
    await context.close();
  }, 90_000);

  test.skipIf(mode?.kind !== 'dev-server')('Temporal UI: an operator finds the held workflow by ApprovalStatus = "pending" and opens it; its page shows the summary', async () => {
    const uiUrl = stack.server.devServer!.uiUrl!;
    const id = await held(7_300, 'operator.example');
    const workflowId = heldWorkflowId(id);
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);

    // Visibility is eventually consistent, and the search attribute is set by the workflow's first
    // task: wait until the server lists it under the query (the same one the UI sends), then give
    // the page the time a loaded machine needs to render it. Reloading every 3 s threw each
    // half-rendered page away under load; a reload now comes only after 30 s without the row.
    const listQuery = `ApprovalStatus="pending" AND WorkflowId="${workflowId}"`;
    await until('held workflow listed by visibility', async () => {
      for await (const listed of stack.server.env.client.workflow.list({ query: listQuery })) if (listed.workflowId === workflowId) return true;
      return undefined;
    }, 90_000, 500);
    const query = encodeURIComponent(listQuery);
    await until('held workflow listed in the Temporal UI', async () => {
      await page.goto(`${uiUrl}/namespaces/${stack.server.namespace}/workflows?query=${query}`);
      try {
        await page.getByRole('link', { name: workflowId }).waitFor({ timeout: 30_000 });
        return true;
      } catch {
        return undefined;
      }
    }, 90_000, 500).catch(async (err: Error) => {
      // What the page showed instead, for the log of a run that cannot be watched.
      const shown = await page.locator('body').innerText().catch(() => '(no page)');
      throw new Error(`${err.message}; the page showed: ${shown.replace(/\s+/g, ' ').slice(0, 600)}`);
    });
    await page.screenshot({ path: path.join(ARTIFACTS, 'temporal-ui-pending-holds.png'), fullPage: true });

    await page.getByRole('link', { name: workflowId }).click();
    await page.waitForURL(new RegExp(`/workflows/${workflowId}/`));
    await page.getByText('heldAuthorization').first().waitFor();
    // The workflow's static summary says what the hold is without opening anything else.
    const summary = await stack.server.env.client.workflow.getHandle(workflowId).describe().then((d) => d.staticSummary());
    expect(summary).toMatch(new RegExp(`^73\\.00 USD at operator\\.example for Engine bot \\(${agentId}\\), expires \\d+ \\w{3} \\d\\d:\\d\\d UTC$`));
    // UI 2.54 shows a workflow's static summary and details under its "User Metadata" tab.
    await page.getByText('User Metadata', { exact: true }).first().click();
    // Each is rendered as markdown in a frame of its own.
    await page.frameLocator('#user-metadata-summary').getByText(summary!).waitFor();
    await page.frameLocator('#user-metadata-details').getByText('Reason:').waitFor();
    await page.screenshot({ path: SUMMARY_SCREENSHOT, fullPage: true });
    await context.close();
  }, 300_000);
});
