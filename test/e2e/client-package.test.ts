/**
 * `spend-auth/client` as another Node 20 project uses it: the entry is built (the build's
 * TypeScript settings, into a staging copy, not the checkout's dist/), packed with `npm pack` (its
 * `files` and `exports`), and unpacked into a scratch project's node_modules beside the packages
 * the built entry imports at run time (found in the built files, each a dependency of package.json;
 * the installed copies, linked: no registry is contacted). The scratch project type-checks a
 * consumer against the packed declarations (NodeNext resolution through the `exports` map, every
 * declaration file checked), and runs the TypeScript quick start of docs/clients.md with plain
 * `node` against the service: an approval, and a held request waited for while a reviewer approves
 * it. The engine is the FAKE inline gateway (test/support/fake-gateway.ts).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { agentWithPolicy, createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STEP_TIMEOUT = 120_000;

/** An installed package's folder: the checkout's node_modules, or the nearest one above it (a worktree's). */
function installed(name: string): string {
  for (let dir = ROOT; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`${name} is not installed`);
  }
}
const TSC = path.join(installed('.bin'), 'tsc');
const TYPE_ROOTS = path.join(installed('@types'));

/** The consumer: what a project of its own writes, typed against the packed declarations. */
const CONSUMER = `import { API_VERSION, authorizeSpendTool, RateLimitError, SpendAuth, SpendAuthError, TokenError, verifyWebhook, type Decision, type TokenClaims, type WebhookEvent } from 'spend-auth/client';

const spend = new SpendAuth({ baseUrl: process.argv[2]!, apiKey: process.argv[3]!, maxRetries: 2, timeoutMs: 10_000 });
const d: Decision = await spend.authorize({ agent_id: process.argv[4]!, amount: 100, currency: 'USD', vendor: 'openai.com' });
const claims: TokenClaims = await spend.verifyToken(d.authorization_token!, { account: process.argv[5]!, livemode: false });
const failed = await spend.getDecision('dec_missing').catch((e: unknown) => e);
const tool = authorizeSpendTool(spend, { wait: 5 });
const answer = JSON.parse(await tool.invoke({ agent_id: process.argv[4]!, amount: 12.5, currency: 'USD', vendor: 'x.example' })) as { error: { code: string; param: string } };
export async function onDelivery(raw: Buffer, headers: Record<string, string | string[] | undefined>): Promise<string> {
  const event: WebhookEvent = await verifyWebhook(raw, headers, 'whsec_x');
  return event.event === 'approval.completed' ? event.data.outcome : event.event;
}
// The declarations are real, not \`any\`: a wrong type is a compile error (never called).
export function misuse() {
  // @ts-expect-error amount is a number of minor units
  void spend.authorize({ agent_id: 'agt_1', amount: '1', currency: 'USD', vendor: 'a' });
  // @ts-expect-error the claims have no such member
  void claims.scope;
}
const e = failed as SpendAuthError;
console.log(JSON.stringify({
  decision: d.decision, aud: claims.aud, error: [e instanceof SpendAuthError, e.status, e.code, typeof e.requestId], rateLimitIsSpendAuthError: RateLimitError.prototype instanceof SpendAuthError,
  tokenErrorIsSpendAuthError: TokenError.prototype instanceof SpendAuthError, tool: [tool.name, answer.error.code, answer.error.param], apiVersion: API_VERSION,
}));
`;

let work: string;
let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'spend-auth-client-package-'));
  ctx = await createTestContext({ gateway: (deps) => new FakeInlineGateway(deps), testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
}, STEP_TIMEOUT);
afterAll(async () => {
  await ctx?.close();
  if (work) await fs.rm(work, { recursive: true, force: true });
});

/** The bare specifiers the built JavaScript imports (node: built-ins aside), statically or dynamically. */
async function runtimeImports(dir: string): Promise<string[]> {
  const found = new Set<string>();
  for (const entry of await fs.readdir(dir, { recursive: true })) {
    if (!entry.endsWith('.js')) continue;
    const code = await fs.readFile(path.join(dir, entry), 'utf8');
    for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)['"]([^'"./][^'"]*)['"]/gm)) {
      const spec = m[1]!;
      if (spec.startsWith('node:')) continue;
      found.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  }
  return [...found].sort();
}

test(
  'packed with npm pack and unpacked into a scratch project, spend-auth/client type-checks and runs the quick start with plain node',
  async () => {
    // 1. Build the entry with the build's settings into a staging copy of the package.
    const stage = path.join(work, 'stage');
    await fs.mkdir(stage, { recursive: true });
    for (const file of ['package.json', 'README.md']) await fs.copyFile(path.join(ROOT, file), path.join(stage, file));
    await fs.writeFile(
      path.join(work, 'tsconfig.build-client.json'),
      JSON.stringify({
        extends: path.join(ROOT, 'tsconfig.build.json'),
        compilerOptions: { rootDir: ROOT, outDir: path.join(stage, 'dist'), sourceMap: false, typeRoots: [TYPE_ROOTS] },
        include: [],
        files: [path.join(ROOT, 'src', 'client', 'index.ts')],
      }),
    );
    await run(TSC, ['-p', path.join(work, 'tsconfig.build-client.json')], { cwd: ROOT });

    // 2. Pack it as npm would publish it.
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: stage });
    const [info] = JSON.parse(packed.stdout) as [{ filename: string; version: string; files: { path: string }[] }];
    expect(info.files.map((f) => f.path)).toEqual(expect.arrayContaining(['package.json', 'dist/src/client/index.js', 'dist/src/client/index.d.ts', 'dist/src/kernel/api-version.js']));
    const pkg = JSON.parse(await fs.readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string>; exports: Record<string, unknown> };
    expect(info.version).toBe(pkg.version);
    expect(pkg.exports['./client']).toEqual({ types: './dist/src/client/index.d.ts', default: './dist/src/client/index.js' });

    // 3. What the built entry needs at run time: each a dependency of the package (never a dev
    // one such as @openai/agents), and no server code came along.
    const needed = await runtimeImports(path.join(stage, 'dist'));
    expect(needed).toEqual(['http-message-sig', 'jose', 'openapi-fetch']);
    for (const name of needed) expect(pkg.dependencies[name], `${name} is not a dependency`).toBeDefined();
    const built = (await fs.readdir(path.join(stage, 'dist', 'src'), { recursive: true })).filter((f) => f.endsWith('.js'));
    expect(built.filter((f) => !f.startsWith('client') && !f.startsWith('kernel'))).toEqual([]);

    // 4. A scratch project with the unpacked package and those dependencies, linked.
    const scratch = path.join(work, 'consumer');
    const modules = path.join(scratch, 'node_modules');
    await fs.mkdir(path.join(modules, 'spend-auth'), { recursive: true });
    await run('tar', ['-xzf', path.join(work, info.filename), '-C', path.join(modules, 'spend-auth'), '--strip-components=1']);
    for (const name of needed) {
      await fs.mkdir(path.dirname(path.join(modules, name)), { recursive: true });
      await fs.symlink(installed(name), path.join(modules, name), 'dir');
    }
    await fs.writeFile(
      path.join(scratch, 'package.json'),
      JSON.stringify({ name: 'client-consumer', private: true, type: 'module', dependencies: { 'spend-auth': `file:../${info.filename}` } }),
    );
    await fs.writeFile(path.join(scratch, 'main.ts'), CONSUMER);
    // The quick start of docs/clients.md, as written: at most 10 lines.
    const doc = await fs.readFile(path.join(ROOT, 'docs', 'clients.md'), 'utf8');
    const typescript = doc.slice(doc.indexOf('\n## TypeScript'), doc.indexOf('\n## Python'));
    const quickstart = /```ts\n([\s\S]*?)```/.exec(typescript)?.[1];
    expect(quickstart, 'no ts quick start in docs/clients.md').toBeDefined();
    expect(quickstart!.trim().split('\n').length).toBeLessThanOrEqual(10);
    await fs.writeFile(path.join(scratch, 'quickstart.ts'), quickstart!);
    await fs.writeFile(
      path.join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'out', typeRoots: [TYPE_ROOTS], types: ['node'], skipLibCheck: false },
        files: ['main.ts', 'quickstart.ts'],
      }),
    );

    // 5. Types resolve through the package's exports map; the consumer and the quick start compile.
    const compiled = await run(TSC, ['-p', scratch], { cwd: scratch }).catch((err: { stdout: string }) => err);
    expect('stdout' in compiled ? compiled.stdout : '').toBe('');

    // 6. Plain node runs the consumer against the service.
    const { agentId } = await agentWithPolicy(acct.test, { budget_monthly: 1_000_000, budget_single_max: 500_000, require_approval_above: 100_000 });
    const agentKey = (await acct.test.post('/v1/api-keys', { name: 'packaged', role: 'agent', agent_id: agentId })).body.key as string;
    const out = await run(process.execPath, [path.join(scratch, 'out', 'main.js'), `${ctx.baseUrl}/v1`, agentKey, agentId, acct.id], { cwd: scratch });
    expect(JSON.parse(out.stdout)).toEqual({
      decision: 'approved',
      aud: acct.id,
      error: [true, 404, 'not_found', 'string'],
      rateLimitIsSpendAuthError: true,
      tokenErrorIsSpendAuthError: true,
      tool: ['authorize_spend', 'invalid_request', 'amount'],
      apiVersion: 'v1',
    });

    // 7. The quick start: approved at once; the held one waited for while a reviewer approves it.
    const env = { ...process.env, SPEND_AUTH_BASE_URL: `${ctx.baseUrl}/v1`, SPEND_AUTH_API_KEY: agentKey, AGENT_ID: agentId };
    const quick = run(process.execPath, [path.join(scratch, 'out', 'quickstart.js')], { cwd: scratch, env });
    const reviewer = ctx.client((await acct.test.post('/v1/api-keys', { name: 'reviewer', role: 'reviewer' })).body.key);
    let held: string | undefined;
    for (let i = 0; i < 400 && !held; i++) {
      held = ((await reviewer.get(`/v1/approvals?status=pending&agent_id=${agentId}`)).body.data as { decision_id: string }[])[0]?.decision_id;
      if (!held) await new Promise((r) => setTimeout(r, 50));
    }
    expect(held).toBeDefined();
    await new Promise((r) => setTimeout(r, 300));
    expect((await reviewer.post(`/v1/approvals/${held}/approve`, { note: 'ok' })).status).toBe(200);
    const lines = (await quick).stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^approved gca_/);
    expect(lines[1]).toBe(`approved ${held}`);
  },
  STEP_TIMEOUT * 2,
);
