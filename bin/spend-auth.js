#!/usr/bin/env node
// From a checkout the CLI runs from TypeScript through tsx, so it works without a build step.
// With NODE_ENV=production and a build present (`npm run build`, as the Docker image does) it runs
// the compiled dist/src/cli/main.js instead: no TypeScript compilation at start.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = new URL('../dist/src/cli/main.js', import.meta.url);
let cli;
if (process.env.NODE_ENV === 'production' && fs.existsSync(fileURLToPath(compiled))) {
  cli = await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(fileURLToPath(new URL('../src/cli/main.ts', import.meta.url)));
}
await cli.main(process.argv.slice(2));
