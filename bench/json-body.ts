// Micro-benchmark: the cost of reading a request body as I-JSON (src/kernel/i-json.ts) against
// JSON.parse alone, on realistic authorize bodies, and of the body work a request does in all:
// parse, then the input guard's walk for unstorable text (src/kernel/storable-text.ts), before and after
// the change. Also a tokenizer-based check (jsonc-parser's visitor, the well-kept alternative).
// CPU per operation is the figure to compare; ops/s moves with whatever else the machine runs.
//   npx tsx bench/json-body.ts                    (prints a table; --json for the raw figures)
//   npx tsx bench/json-body.ts --seconds 2        (time per case; default 1)
import { parseArgs } from 'node:util';
import { visit } from 'jsonc-parser';
import { parseIJson } from '../src/kernel/i-json.js';
import { readJsonBody } from '../src/http/body.js';

const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '1' }, json: { type: 'boolean', default: false } } });
const SECONDS = Number(args.seconds);

const authorize = (metadataKeys: number, i = 0) => ({
  agent_id: `agt_${(1e12 + i).toString(36)}Q8mZk2`,
  amount: 1850 + i,
  currency: 'USD',
  vendor: 'https://api.openai.com/v1/chat',
  category: 'saas',
  metadata: Object.fromEntries(Array.from({ length: metadataKeys }, (_, k) => [`key_${k}`, k % 3 === 0 ? `INV-2026-${1000 + k} "quoted": yes` : k % 3 === 1 ? k * 7 : true])),
});

const BODIES: Record<string, string> = {
  // What an agent sends: a few metadata keys (invoice, project, run id).
  'authorize, 3 metadata keys': JSON.stringify({ ...authorize(0), metadata: { invoice: 'INV-2026-0042', project: 'atlas', run_id: 'run_8f3a9c1e' } }),
  'authorize, 50 metadata keys': JSON.stringify(authorize(50)),
  // The largest body the service takes (64 KiB): a simulation of many authorize requests.
  'simulate, 250 requests': JSON.stringify({ policy_id: 'pol_123', requests: Array.from({ length: 250 }, (_, i) => authorize(2, i)) }),
};

/**
 * The input guard's walk as it was before this change (a path built for every node, a regular
 * expression per string), kept here only so "before" measures what requests paid then.
 */
const UNSTORABLE_BEFORE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
function inputGuardBefore(value: unknown): string | undefined {
  const stack: Array<{ value: unknown; path: string[] }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE_BEFORE.test(v)) return path.join('.');
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i -= 1) stack.push({ value: v[i], path: [...path, String(i)] });
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      if (entries.some(([k]) => UNSTORABLE_BEFORE.test(k))) return path.join('.');
      for (let i = entries.length - 1; i >= 0; i -= 1) stack.push({ value: entries[i]![1], path: [...path, entries[i]![0]] });
    }
  }
  return undefined;
}

/** Duplicate detection by a full tokenizer pass (jsonc-parser), then JSON.parse for the value. */
function tokenizerCheck(text: string): unknown {
  const seen: Array<Set<string>> = [];
  let repeated = false;
  visit(text, {
    onObjectBegin: () => void seen.push(new Set()),
    onObjectEnd: () => void seen.pop(),
    onObjectProperty: (name) => {
      const names = seen[seen.length - 1]!;
      if (names.has(name) || name === '__proto__' || name === 'constructor') repeated = true;
      names.add(name);
    },
  });
  if (repeated) throw new Error('repeated');
  return JSON.parse(text);
}

const CASES: Record<string, (text: string, bytes: Buffer) => unknown> = {
  'JSON.parse (before)': (t) => JSON.parse(t),
  'parseIJson (after)': (t) => parseIJson(t),
  'jsonc-parser visit + JSON.parse': (t) => tokenizerCheck(t),
  // The whole of what the API does with a body's bytes once read: decode, parse, check.
  'body read before: decode, JSON.parse, guard walk': (_t, b) => inputGuardBefore(JSON.parse(b.toString('utf8'))),
  'body read after: readJsonBody': (_t, b) => readJsonBody(b, undefined),
};

interface Figure {
  body: string;
  bytes: number;
  case: string;
  opsPerSecond: number;
  cpuMicrosPerOp: number;
}

function run(fn: (t: string, b: Buffer) => unknown, text: string): { opsPerSecond: number; cpuMicrosPerOp: number } {
  const bytes = Buffer.from(text);
  // Warm up so the optimizing compiler has run, then measure wall time and process CPU.
  for (let i = 0; i < 20_000; i++) fn(text, bytes);
  let ops = 0;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const until = t0 + BigInt(Math.round(SECONDS * 1e9));
  let now = t0;
  while (now < until) {
    for (let i = 0; i < 1000; i++) fn(text, bytes);
    ops += 1000;
    now = process.hrtime.bigint();
  }
  const cpu = process.cpuUsage(cpu0);
  const elapsedS = Number(now - t0) / 1e9;
  return { opsPerSecond: Math.round(ops / elapsedS), cpuMicrosPerOp: (cpu.user + cpu.system) / ops };
}

const figures: Figure[] = [];
for (const [body, text] of Object.entries(BODIES)) {
  for (const [name, fn] of Object.entries(CASES)) {
    figures.push({ body, bytes: Buffer.byteLength(text), case: name, ...run(fn, text) });
  }
}

if (args.json) {
  console.log(JSON.stringify({ node: process.version, seconds: SECONDS, figures }, null, 2));
} else {
  for (const [body, text] of Object.entries(BODIES)) {
    console.log(`\n${body} (${Buffer.byteLength(text)} bytes)`);
    const base = figures.find((f) => f.body === body && f.case === 'JSON.parse (before)')!;
    for (const f of figures.filter((x) => x.body === body)) {
      const ratio = f.cpuMicrosPerOp / base.cpuMicrosPerOp;
      console.log(`  ${f.case.padEnd(50)} ${String(f.opsPerSecond).padStart(10)} ops/s  ${f.cpuMicrosPerOp.toFixed(3).padStart(8)} µs CPU/op  ×${ratio.toFixed(2)}`);
    }
  }
}
