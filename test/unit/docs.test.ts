/** What the README tells a new user to type, checked against what the service needs. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
/** The fenced code blocks of a markdown text. */
const codeBlocks = (markdown: string) => [...markdown.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, code: m[2]! }));

describe('README', () => {
  it('creates each PostgreSQL database (createdb) before a command that needs it', () => {
    const steps = codeBlocks(readme).filter((b) => /DATABASE_URL=postgres/.test(b.code));
    expect(steps.length).toBeGreaterThan(0);
    for (const { code } of steps) {
      const [database] = /DATABASE_URL=postgres:\/\/[^/\s]+\/(\w+)/.exec(code)!.slice(1);
      const created = code.split('\n').findIndex((l) => new RegExp(`^createdb .*\\b${database}$`).test(l.trim()));
      const used = code.split('\n').findIndex((l) => l.includes(`/${database}`));
      expect(created, `no createdb for ${database} in:\n${code}`).toBeGreaterThanOrEqual(0);
      expect(created).toBeLessThan(used);
    }
  });
});
