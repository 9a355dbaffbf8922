#!/usr/bin/env -S node --max-semi-space-size=2
// Runs the compiled CLI (npm install builds it into dist/).
import { existsSync } from 'node:fs';
import module from 'node:module';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error('strata: not built yet; run `npm install` (or `npm run build`) in the repository first');
  process.exit(1);
}
// The snappy binding allocates with mimalloc, which keeps freed memory
// until that thread allocates again; a worker that decoded a 250 MB body
// kept it resident while idle (issue 25). Purge at once instead. Read when
// the binding loads, so set before anything imports it.
process.env.MIMALLOC_PURGE_DELAY ??= '0';
// Node 22.1 and later keep V8's compiled code of these modules between
// starts (in the OS temporary directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off).
module.enableCompileCache?.();
const { run } = await import(main.href);
process.exitCode = await run(process.argv.slice(2));
