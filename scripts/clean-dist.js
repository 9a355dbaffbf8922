// Removes dist/ before the TypeScript build, so that a file whose source is
// gone never lingers there (and is never packed into the npm package).
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
