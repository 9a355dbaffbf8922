// The shape of src/ (docs/design.md, "The map"): folders stand on layers, each
// imports only its own layer and those below, and nothing imports in a loop.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The layers of src/, from the ground up; docs/design.md says what each folder holds. */
const LAYERS: readonly (readonly string[])[] = [
  // The ground floor: bytes, errors, configuration values, files, the module loader, the worker pool.
  ['encoding', 'errors', 'config', 'files', 'background', 'pool', 'wasm'],
  // Formats and storage parts: chunks, batches and WAL records, postings, the logs, blocks, buckets, documents, OTLP's translation.
  ['chunkenc', 'record', 'index', 'wal', 'chunks', 'blocks', 'objstore', 'docstore', 'otlp'],
  // The engine's parts: reads over readers, the head, exemplars, metadata, shipping, remote read's answers.
  ['query', 'head', 'exemplars', 'metadata', 'shipper', 'remote-read'],
  // The engine.
  ['db'],
  // Services over the engine: the one ingest path, the Store API, the sidecar's source, metrics, the worker entry.
  ['ingest', 'store', 'sidecar', 'metrics', 'worker'],
  // Front ends.
  ['http', 'grpc'],
  // The program: the library, the command line, the load tester.
  ['lib', 'cli', 'bench'],
];

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const src = join(root, 'src');
const IGNORED = new Set(['gen', 'types']);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (!(dir === src && IGNORED.has(e.name))) sourceFiles(p, out);
    } else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;
const files = sourceFiles(src);
/** file -> files of src/ it imports (relative imports, gen/ left out). */
const imports = new Map<string, string[]>();
for (const f of files) {
  const targets: string[] = [];
  for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) {
    const target = resolve(dirname(f), (m[1] ?? m[2]!).replace(/\.js$/, '.ts'));
    if (target.startsWith(src + sep) && !target.startsWith(join(src, 'gen') + sep)) targets.push(target);
  }
  imports.set(f, targets);
}
const folderOf = (f: string): string => {
  const parts = relative(src, f).split(sep);
  return parts.length > 1 ? parts[0]! : '(root)';
};
const rel = (f: string): string => relative(root, f);

/** Strongly connected groups of more than one node (Tarjan). */
function cycles(edges: Map<string, Iterable<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('the shape of src/', () => {
  test('every folder of src/ stands on one layer', () => {
    const placed = LAYERS.flat();
    assert.equal(new Set(placed).size, placed.length, 'a folder is on two layers');
    const folders = readdirSync(src, { withFileTypes: true }).filter((e) => e.isDirectory() && !IGNORED.has(e.name)).map((e) => e.name);
    assert.deepEqual(folders.filter((d) => !placed.includes(d)), [], 'folders on no layer: add them to LAYERS and to docs/design.md');
    assert.deepEqual(placed.filter((d) => !folders.includes(d)), [], 'layers name folders that do not exist');
  });

  test('a folder imports only from its own layer and the layers below', () => {
    const layerOf = new Map(LAYERS.flatMap((folders, i) => folders.map((d) => [d, i] as const)));
    const upward: string[] = [];
    for (const [f, targets] of imports) {
      const a = folderOf(f);
      if (a === '(root)') continue;
      for (const t of targets) {
        const b = folderOf(t);
        if (b === '(root)' || b === a) continue;
        if ((layerOf.get(b) ?? -1) > (layerOf.get(a) ?? -1)) upward.push(`${rel(f)} -> ${rel(t)}`);
      }
    }
    assert.deepEqual(upward, []);
  });

  test('no folders import each other in a loop', () => {
    const edges = new Map<string, Set<string>>();
    for (const [f, targets] of imports) {
      const a = folderOf(f);
      for (const t of targets) {
        const b = folderOf(t);
        if (a !== b && a !== '(root)' && b !== '(root)') (edges.get(a) ?? edges.set(a, new Set()).get(a)!).add(b);
      }
    }
    assert.deepEqual(cycles(edges), []);
  });

  test('no file imports a file that imports it back, however far round', () => {
    assert.deepEqual(cycles(imports).map((group) => group.map(rel)), []);
  });
});
