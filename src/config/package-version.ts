import { readFileSync } from 'node:fs';

/** The package's version, from its package.json (read once, for every part that reports it). */
export const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
