/**
 * The design card's main flow over HTTP against a running `npm start`, as a new user would try it:
 * a policy, an agent, a request held for review, a reviewer's approval (retried while the engine
 * is not up yet: 503 with Retry-After), the token. Prints one JSON line with the timings.
 *
 *   npx tsx bench/first-approval.ts http://127.0.0.1:3000 gc_test_…
 */
const [base = 'http://127.0.0.1:3000', key] = process.argv.slice(2);
if (!key) {
  process.stderr.write('usage: npx tsx bench/first-approval.ts BASE_URL ADMIN_KEY\n');
  process.exit(2);
}
const DEADLINE_MS = 300_000;
const started = performance.now();

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${base}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

const policy = await call('POST', '/policies', { name: 'Research agents', budget_monthly: 50_000, budget_single_max: 10_000, require_approval_above: 5_000 });
const agent = await call('POST', '/agents', { name: 'research-bot', policy_id: policy.body.id });
const held = await call('POST', '/authorize', { agent_id: agent.body.id, amount: 8_200, currency: 'USD', vendor: 'aws.amazon.com' });
if (held.body.status !== 'pending') throw new Error(`expected a held request, got ${JSON.stringify(held.body)}`);
const heldAt = performance.now();

let approved;
let unavailable = 0;
for (;;) {
  approved = await call('POST', `/approvals/${held.body.decision_id}/approve`, { note: 'first approval' });
  if (approved.status !== 503) break;
  unavailable += 1;
  if (performance.now() - started > DEADLINE_MS) throw new Error('the engine did not answer within 5 minutes');
  await new Promise((r) => setTimeout(r, 1_000 * Number(approved!.headers.get('retry-after') ?? 1)));
}
if (approved.status !== 200 || !String(approved.body.authorization_token ?? '').startsWith('gca_')) {
  throw new Error(`approval failed: ${approved.status} ${JSON.stringify(approved.body)}`);
}
const done = performance.now();
process.stdout.write(
  `${JSON.stringify({ decision_id: held.body.decision_id, status: approved.body.status, token: `${approved.body.authorization_token.slice(0, 12)}…`, held_ms: Math.round(heldAt - started), approve_ms: Math.round(done - heldAt), total_ms: Math.round(done - started), answers_503: unavailable })}\n`,
);
