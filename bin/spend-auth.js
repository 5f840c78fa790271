#!/usr/bin/env node
// Runs the TypeScript CLI through tsx so the bin works from a checkout without a build step.
import { register } from 'tsx/esm/api';
import { fileURLToPath } from 'node:url';

register();
const cli = new URL('../src/cli.ts', import.meta.url);
const { main } = await import(fileURLToPath(cli));
await main(process.argv.slice(2));
