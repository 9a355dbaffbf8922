// The circular exemplar store against Prometheus' rules (tsdb/exemplar.go
// with no out-of-order window).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareLabels } from '../../src/index/index.js';
import { EXEMPLAR_MAX_LABEL_CHARS, ExemplarStore, exemplarLabelsOf, type ExemplarSeries } from '../../src/exemplars/exemplar-store.js';
import { instantiateHeadWasm } from '../../src/wasm/head.js';

const wasm = instantiateHeadWasm();
/** xxh64 of the bytes, as the engine hashes label sets. */
function xxh64(bytes: Uint8Array): bigint {
  const ptr = wasm.alloc(bytes.length + 8);
  new Uint8Array(wasm.memory.buffer).set(bytes, ptr);
  const h = wasm.xxh64(ptr, bytes.length, 0n);
  wasm.free(ptr);
  return h;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
function halves(v: number): [number, number] {
  f64[0] = v;
  return [u32[0]!, u32[1]!];
}

function key(...labels: string[]): string {
  return labels.map((s) => `${Buffer.from(s).toString('latin1')}\xff`).join('');
}

let nextId = 1;
function seriesOf(...labels: string[]): ExemplarSeries {
  return { key: key(...labels), labels, id: nextId++ };
}

function add(store: ExemplarStore, s: ExemplarSeries, ts: number, value: number, ...labels: string[]): string {
  const [lo, hi] = halves(value);
  return store.add(s, ts, lo, hi, key(...labels));
}

/** Every exemplar of every series, as [series name, ts, value, labels]. */
function all(store: ExemplarStore, start = -Infinity, end = Infinity): Array<[string, number, number, string[]]> {
  const out: Array<[string, number, number, string[]]> = [];
  for (const r of store.select(start, end, () => true, compareLabels)) {
    for (const e of r.exemplars) {
      u32[0] = e.valueLo;
      u32[1] = e.valueHi;
      out.push([r.seriesLabels[1]!, e.ts, f64[0]!, exemplarLabelsOf(e.labelsKey)]);
    }
  }
  return out;
}

describe('ExemplarStore: Prometheus\' rules', () => {
  test('keeps each series\' exemplars oldest first; a duplicate of the newest is accepted and stored once', () => {
    const store = new ExemplarStore(10, xxh64);
    const s = seriesOf('__name__', 'a');
    assert.equal(add(store, s, 10, 1, 'trace_id', 'x'), 'added');
    assert.equal(add(store, s, 20, 2, 'trace_id', 'y'), 'added');
    assert.equal(add(store, s, 20, 2, 'trace_id', 'y'), 'duplicate');
    assert.deepEqual(all(store), [['a', 10, 1, ['trace_id', 'x']], ['a', 20, 2, ['trace_id', 'y']]]);
    assert.equal(store.size, 2);
  });

  test('an exemplar older than its series\' newest is out of order; other series are not held back', () => {
    const store = new ExemplarStore(10, xxh64);
    const a = seriesOf('__name__', 'a');
    const b = seriesOf('__name__', 'b');
    add(store, a, 20, 1);
    assert.equal(add(store, a, 19, 1), 'out-of-order');
    assert.equal(add(store, b, 5, 1), 'added');
  });

  test('at the newest time: a larger value is taken, a smaller one is out of order, equal values are ordered by label hash', () => {
    const store = new ExemplarStore(10, xxh64);
    const s = seriesOf('__name__', 'h_bucket');
    add(store, s, 20, 5, 'trace_id', 'm');
    assert.equal(add(store, s, 20, 4, 'trace_id', 'n'), 'out-of-order');
    assert.equal(add(store, s, 20, 6, 'trace_id', 'n'), 'added');
    const [lower, higher] = ['p', 'q', 'r', 's', 't'].map((t) => ({ t, h: xxh64(Buffer.from(`trace_id\xff${t}\xff`, 'latin1')) }))
      .sort((x, y) => (x.h < y.h ? -1 : 1)).slice(0, 2);
    const t = seriesOf('__name__', 'h2');
    add(store, t, 30, 1, 'trace_id', higher!.t);
    assert.equal(add(store, t, 30, 1, 'trace_id', lower!.t), 'out-of-order', 'a smaller hash');
    const u = seriesOf('__name__', 'h3');
    add(store, u, 30, 1, 'trace_id', lower!.t);
    assert.equal(add(store, u, 30, 1, 'trace_id', higher!.t), 'added', 'a larger hash');
  });

  test(`labels over ${EXEMPLAR_MAX_LABEL_CHARS} characters (names and values, counted as UTF-8 characters) are refused`, () => {
    const store = new ExemplarStore(10, xxh64);
    const s = seriesOf('__name__', 'a');
    assert.equal(add(store, s, 1, 1, 'trace_id', 'x'.repeat(EXEMPLAR_MAX_LABEL_CHARS - 8)), 'added');
    assert.equal(add(store, s, 2, 1, 'trace_id', 'x'.repeat(EXEMPLAR_MAX_LABEL_CHARS - 7)), 'too-long');
    assert.equal(add(store, s, 3, 1, 'trace_id', 'é'.repeat(EXEMPLAR_MAX_LABEL_CHARS - 8)), 'added', 'two bytes, one character each');
  });

  test('full, each new exemplar replaces the oldest appended, whatever its series; a series left with none leaves the index', () => {
    const store = new ExemplarStore(3, xxh64);
    const a = seriesOf('__name__', 'a');
    const b = seriesOf('__name__', 'b');
    add(store, a, 1, 1);
    add(store, b, 2, 1);
    add(store, a, 3, 1);
    add(store, b, 4, 1); // replaces a@1
    assert.deepEqual(all(store).map(([n, t]) => `${n}@${t}`), ['a@3', 'b@2', 'b@4']);
    add(store, b, 5, 1); // replaces b@2
    add(store, b, 6, 1); // replaces a@3: a has none left
    assert.deepEqual(all(store).map(([n, t]) => `${n}@${t}`), ['b@4', 'b@5', 'b@6']);
    assert.equal(store.seriesCount, 1);
    assert.equal(store.size, 3);
    add(store, b, 7, 1); // replaces its own oldest
    assert.deepEqual(all(store).map(([n, t]) => `${n}@${t}`), ['b@5', 'b@6', 'b@7']);
    const order: number[] = [];
    store.forEach((_s, e) => order.push(e.ts));
    assert.deepEqual(order, [5, 6, 7], 'forEach: oldest appended first');
  });

  test('a store of one slot keeps the latest exemplar', () => {
    const store = new ExemplarStore(1, xxh64);
    const a = seriesOf('__name__', 'a');
    add(store, a, 1, 1);
    add(store, a, 2, 1);
    assert.deepEqual(all(store).map(([n, t]) => `${n}@${t}`), ['a@2']);
  });

  test('select: the range is inclusive, series are matched by label set and sorted by labels', () => {
    const store = new ExemplarStore(10, xxh64);
    const b = seriesOf('__name__', 'b', 'job', 'x');
    const a = seriesOf('__name__', 'a', 'job', 'y');
    for (const t of [10, 20, 30]) add(store, b, t, t);
    add(store, a, 25, 1);
    assert.deepEqual(all(store, 20, 30).map(([n, t]) => `${n}@${t}`), ['a@25', 'b@20', 'b@30']);
    assert.deepEqual(store.select(0, 100, (l) => l[3] === 'x', compareLabels).map((r) => r.seriesLabels), [b.labels]);
    assert.deepEqual(store.select(31, 100, () => true, compareLabels), []);
    assert.deepEqual(store.timeRange(), { min: 10, max: 30 });
  });

  test('a capacity of 0 keeps nothing: every exemplar is \'disabled\'', () => {
    const store = new ExemplarStore(0, xxh64);
    assert.equal(add(store, seriesOf('__name__', 'a'), 1, 1), 'disabled');
    assert.equal(store.size, 0);
    assert.equal(store.timeRange(), undefined);
  });

  test('value bits are kept as given (a NaN payload survives)', () => {
    const store = new ExemplarStore(2, xxh64);
    store.add(seriesOf('__name__', 'a'), 1, 0x00000002, 0x7ff00000, key());
    const [r] = store.select(-Infinity, Infinity, () => true, compareLabels);
    assert.deepEqual([r!.exemplars[0]!.valueLo, r!.exemplars[0]!.valueHi], [2, 0x7ff00000]);
  });
});
