/**
 * `spend-auth/x402` as another Node 20 project uses it: the package is built (the build's
 * TypeScript settings, into a staging copy, not the checkout's dist/), packed with `npm pack`
 * (its `files` and `exports`), and unpacked into a scratch project's node_modules beside that
 * project's own `@x402/core`, `@x402/fetch`, `@x402/evm` and viem (the installed copies, linked:
 * no registry is contacted) and the one runtime dependency of the entry, openapi-fetch. The
 * scratch project type-checks a consumer against the packed declarations (NodeNext resolution,
 * through the `exports` map; every declaration file checked, the peers' included), then runs it
 * with plain `node`: it pays a paywalled endpoint through the service. The example of
 * docs/rails/x402.md is type-checked there too.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, policyBody, type TestContext } from '../support/context.js';
import { startFacilitator, type LocalFacilitator } from '../support/x402-facilitator.js';
import { startMerchant, TEST_NETWORK, type Merchant } from '../support/x402-merchant.js';
import { TEST_PRIVATE_KEY } from '../support/x402-payer.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = path.join(ROOT, 'node_modules', '.bin', 'tsc');
const STEP_TIMEOUT = 120_000;

/** The consumer: what a project of its own writes, typed against the packed declarations. */
const CONSUMER = `import { wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';
import { requireResourceOnRequestedHost, USD_STABLECOINS, withSpendAuthorization, type SpendAuthorizationOutcome } from 'spend-auth/x402';

const [baseUrl, apiKey, agentId, url, key] = process.argv.slice(2) as [string, string, string, string, \`0x\${string}\`];
const outcomes: SpendAuthorizationOutcome[] = [];
const signer = new x402Client().register('${TEST_NETWORK}', new ExactEvmScheme(privateKeyToAccount(key)));
const client: x402Client = withSpendAuthorization(signer, { baseUrl, apiKey, agentId, onOutcome: (o) => outcomes.push(o) });
// The declarations are real, not \`any\`: an option missing is a compile error (never called).
export function misuse() {
  // @ts-expect-error agentId is required
  withSpendAuthorization(new x402Client(), { baseUrl, apiKey });
}
const res = await wrapFetchWithPayment(fetch, requireResourceOnRequestedHost(new x402HTTPClient(client)))(url);
console.log(JSON.stringify({ status: res.status, body: await res.json(), outcomes: outcomes.map((o) => o.type), coins: USD_STABLECOINS.length }));
`;

let work: string;
let ctx: TestContext;
let facilitator: LocalFacilitator;
let merchant: Merchant;

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'spend-auth-x402-package-'));
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  facilitator = await startFacilitator({ networks: [TEST_NETWORK] });
  merchant = await startMerchant({ facilitatorUrl: facilitator.url, price: () => '$0.03', payTo: () => '0x1111111111111111111111111111111111111111' });
}, STEP_TIMEOUT);
afterAll(async () => {
  await merchant?.close();
  await facilitator?.close();
  await ctx?.close();
  if (work) await fs.rm(work, { recursive: true, force: true });
});

const link = async (from: string, name: string) => {
  await fs.mkdir(path.dirname(path.join(from, name)), { recursive: true });
  await fs.symlink(path.join(ROOT, 'node_modules', name), path.join(from, name), 'dir');
};

test(
  'packed with npm pack and unpacked into a scratch project, spend-auth/x402 type-checks and pays through the service with plain node',
  async () => {
    // 1. Build the entry with the build's settings into a staging copy of the package.
    const stage = path.join(work, 'stage');
    await fs.mkdir(stage, { recursive: true });
    for (const file of ['package.json', 'README.md']) await fs.copyFile(path.join(ROOT, file), path.join(stage, file));
    await fs.writeFile(
      path.join(work, 'tsconfig.build-x402.json'),
      JSON.stringify({
        extends: path.join(ROOT, 'tsconfig.build.json'),
        compilerOptions: { rootDir: ROOT, outDir: path.join(stage, 'dist'), sourceMap: false, typeRoots: [path.join(ROOT, 'node_modules', '@types')] },
        include: [],
        files: [path.join(ROOT, 'src', 'rails', 'x402', 'index.ts')],
      }),
    );
    await run(TSC, ['-p', path.join(work, 'tsconfig.build-x402.json')], { cwd: ROOT });

    // 2. Pack it as npm would publish it.
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: stage });
    const [info] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
    const files = info.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['package.json', 'dist/src/rails/x402/index.js', 'dist/src/rails/x402/index.d.ts']));

    // 3. A scratch project with its own x402 dependencies and the unpacked package.
    const scratch = path.join(work, 'consumer');
    const modules = path.join(scratch, 'node_modules');
    await fs.mkdir(path.join(modules, 'spend-auth'), { recursive: true });
    await run('tar', ['-xzf', path.join(work, info.filename), '-C', path.join(modules, 'spend-auth'), '--strip-components=1']);
    for (const name of ['@x402/core', '@x402/fetch', '@x402/evm', 'viem', 'openapi-fetch']) await link(modules, name);
    await fs.writeFile(
      path.join(scratch, 'package.json'),
      JSON.stringify({
        name: 'x402-consumer',
        private: true,
        type: 'module',
        dependencies: { 'spend-auth': `file:../${info.filename}`, '@x402/core': '2.27.0', '@x402/fetch': '2.27.0', '@x402/evm': '2.27.0', viem: '^2.57.0' },
      }),
    );
    await fs.writeFile(path.join(scratch, 'main.ts'), CONSUMER);
    // The example of docs/rails/x402.md compiles as written (type-checked only: it names a real host).
    const doc = await fs.readFile(path.join(ROOT, 'docs', 'rails', 'x402.md'), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(example, 'no ts example in docs/rails/x402.md').toBeDefined();
    expect(example!.trim().split('\n').length).toBeLessThanOrEqual(10);
    await fs.writeFile(path.join(scratch, 'example.ts'), example!);
    await fs.writeFile(
      path.join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'out', typeRoots: [path.join(ROOT, 'node_modules', '@types')], types: ['node'], skipLibCheck: false },
        files: ['main.ts', 'example.ts'],
      }),
    );

    // 4. Types resolve through the package's exports map; the consumer compiles.
    const compiled = await run(TSC, ['-p', scratch], { cwd: scratch }).catch((err: { stdout: string }) => err);
    expect('stdout' in compiled ? compiled.stdout : '').toBe('');
    const declared = await fs.readFile(path.join(modules, 'spend-auth', 'dist', 'src', 'rails', 'x402', 'index.d.ts'), 'utf8');
    expect(declared).toContain('withSpendAuthorization');

    // 5. Plain node runs it against the service: approved, paid once, captured.
    const acct = await ctx.account('growth');
    const policy = await acct.test.post('/v1/policies', policyBody());
    const agentId = (await acct.test.post('/v1/agents', { name: 'packaged', policy_id: policy.body.id })).body.id as string;
    const key = (await acct.test.post('/v1/api-keys', { name: 'x402', role: 'agent', agent_id: agentId })).body.key as string;
    const out = await run(process.execPath, [path.join(scratch, 'out', 'main.js'), `${ctx.baseUrl}/v1`, key, agentId, `${merchant.url}/report`, TEST_PRIVATE_KEY], { cwd: scratch });
    expect(JSON.parse(out.stdout)).toEqual({ status: 200, body: { report: 'the paid content' }, outcomes: ['approved', 'signed', 'captured'], coins: expect.any(Number) });
    expect(facilitator.payments().map((c) => c.path)).toEqual(['/verify', '/settle']);
    const decisions = (await acct.test.get('/v1/audit-logs?limit=10')).body.data.filter((r: { type: string }) => r.type === 'authorization.captured');
    expect(decisions).toHaveLength(1);
  },
  STEP_TIMEOUT * 2,
);
