#!/usr/bin/env node
// Runs the compiled CLI (npm install builds it into dist/).
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error('strata: not built yet; run `npm install` (or `npm run build`) in the repository first');
  process.exit(1);
}
const { run } = await import(main.href);
process.exitCode = await run(process.argv.slice(2));
