// Random mutations of valid requests: each must parse or throw
// MalformedRequestError, never anything else and never hang. Where the
// mutant also decodes with the generated ts-proto decoder, the batch must
// hold exactly the series that decoder sees and the label rules accept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import xxhash from 'xxhash-wasm';
import { WriteRequest } from '../../src/gen/thanos/store/rpc.js';
import { MalformedRequestError } from '../../src/errors/errors.js';
import type { ParsedWrite } from '../../src/ingest/parse/parse-write.js';
import { rng } from '../support/series.js';
import { bitsOf, decodeBatch, histogram, parse, rawSeries, requestOf, series, thanosRequest } from './support.js';
import type { BatchEntry } from './support.js';

// Bounded by count and by time, whichever comes first; FUZZ_CASES and
// FUZZ_SEED run a longer or another campaign by hand.
const MAX_CASES = Number(process.env.FUZZ_CASES ?? 12_000);
const MAX_MS = process.env.FUZZ_CASES === undefined ? 3000 : Number.POSITIVE_INFINITY;
const SEED = Number(process.env.FUZZ_SEED ?? 20261121);

const bases: Uint8Array[] = [
  thanosRequest([
    series(['__name__', 'up', 'instance', 'a:9100', 'job', 'node'], [[1_700_000_000_000n, 1], [1_700_000_015_000n, 0]]),
    series(['__name__', 'x', 'tenant_id', 'w', 'zone', 'é😀'], [[-5n, -2.5], [2n ** 62n, 1e300]]),
    series(['b', '1', 'a', '2'], [[1n, 1]]),
    series(['h', '1'], [[3n, 3]], { histograms: [histogram(3n)], exemplars: [{ labels: [{ name: 't', value: 'x' }], value: 1, timestamp: 3n }] }),
  ], 'team-a', 2n),
  requestOf([rawSeries(['__name__', 'stale', 'job', 'j'], [[10n, 0x7ff0000000000002n], [20n, 0x8000000000000000n]]), rawSeries(['a', 'v'.repeat(140)], [[-(2n ** 63n), 1n]])], 'tn'),
  thanosRequest(Array.from({ length: 20 }, (_, i) => series(['__name__', `m${i}`, 'i', String(i)], [[BigInt(i * 1000), i / 3]]))),
];

function mutate(src: Uint8Array, next: () => number): Uint8Array {
  let bytes = Array.from(src);
  const int = (n: number): number => Math.floor(next() * n);
  const edits = 1 + int(3);
  for (let k = 0; k < edits; k++) {
    const at = int(bytes.length + 1);
    switch (int(7)) {
      case 0: if (at < bytes.length) bytes[at]! ^= 1 << int(8); break;
      case 1: if (at < bytes.length) bytes[at] = int(256); break;
      case 2: bytes.splice(at, 0, int(256)); break;
      case 3: bytes.splice(at, 1); break;
      case 4: bytes = bytes.slice(0, at); break;
      case 5: bytes.splice(at, 0, ...bytes.slice(int(bytes.length), int(bytes.length) + 1 + int(12))); break;
      default: if (at < bytes.length) bytes[at] = [0x00, 0x7f, 0x80, 0xff, 0x0a, 0x12][int(6)]!; break;
    }
  }
  return Uint8Array.from(bytes);
}

const cmp = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** What the batch should hold, from the ts-proto decoding; undefined when that cannot say (lossy strings). */
function expected(bytes: Uint8Array): { entries: { labels: string[]; timestamps: bigint[]; values: number[] }[]; invalid: number; tenant: string } | undefined {
  let req: WriteRequest;
  try {
    req = WriteRequest.decode(bytes);
  } catch {
    return undefined;
  }
  const lossy = (s: string): boolean => s.includes('\ufffd');
  if (lossy(req.tenant)) return undefined;
  const tenant = req.tenant === '' ? 'default-tenant' : req.tenant;
  const entries = [];
  let invalid = 0;
  for (const ts of req.timeseries) {
    if (ts.labels.some((l) => lossy(l.name) || lossy(l.value))) return undefined;
    const valid = ts.labels.length > 0 && ts.labels.every((l, i) =>
      l.name !== '' && l.value !== '' && (i === 0 || cmp(ts.labels[i - 1]!.name, l.name) < 0));
    if (!valid) {
      invalid++;
      continue;
    }
    if (ts.samples.length === 0) continue;
    const pairs = ts.labels.filter((l) => l.name !== 'tenant_id').map((l) => [l.name, l.value] as [string, string]);
    pairs.push(['tenant_id', tenant]);
    pairs.sort((a, b) => cmp(a[0], b[0]));
    entries.push({ labels: pairs.flat(), timestamps: ts.samples.map((s) => s.timestamp), values: ts.samples.map((s) => s.value) });
  }
  return { entries, invalid, tenant };
}

function sameAsDecoder(parsed: ParsedWrite, got: BatchEntry[], want: NonNullable<ReturnType<typeof expected>>, what: string): void {
  assert.equal(parsed.tenant, want.tenant, what);
  assert.equal(parsed.invalidSeries, want.invalid, what);
  assert.equal(got.length, want.entries.length, what);
  got.forEach((e, i) => {
    const w = want.entries[i]!;
    assert.deepEqual(e.labels, w.labels, what);
    assert.deepEqual(e.timestamps, w.timestamps, what);
    // Through a JS number a NaN may lose its payload: compare bits for the rest.
    w.values.forEach((v, k) => {
      if (Number.isNaN(v)) assert.ok((e.valueBits[k]! & 0x7ff0000000000000n) === 0x7ff0000000000000n, what);
      else assert.equal(e.valueBits[k], bitsOf(v), what);
    });
  });
}

test('random mutations of valid requests parse or throw MalformedRequestError, and agree with the ts-proto decoder', async (t) => {
  const { h64Raw } = await xxhash();
  const next = rng(SEED);
  const started = Date.now();
  let cases = 0;
  let parsedCount = 0;
  let compared = 0;
  while (cases < MAX_CASES && Date.now() - started < MAX_MS) {
    const base = bases[cases % bases.length]!;
    const bytes = mutate(base, next);
    const what = `case ${cases}: ${Buffer.from(bytes).toString('hex')}`;
    cases++;
    let parsed: ParsedWrite;
    try {
      parsed = parse(bytes);
    } catch (err) {
      if (!(err instanceof MalformedRequestError)) assert.fail(`${what}: threw ${String(err)}`);
      assert.ok(err.offset >= 0 && err.offset <= bytes.length, `${what}: offset ${err.offset}`);
      continue;
    }
    parsedCount++;
    const got = decodeBatch(parsed.batch);
    let samples = 0;
    for (const e of got) {
      samples += e.timestamps.length;
      assert.equal(e.hash, h64Raw(e.labelBytes, 0n), what);
      for (let i = 2; i < e.labels.length; i += 2) assert.ok(cmp(e.labels[i - 2]!, e.labels[i]!) < 0, `${what}: labels sorted`);
    }
    assert.equal(samples, parsed.samples, what);
    const want = expected(bytes);
    if (want === undefined) continue;
    compared++;
    sameAsDecoder(parsed, got, want, what);
  }
  t.diagnostic(`${cases} mutants in ${Date.now() - started} ms: ${parsedCount} parsed, ${compared} compared with ts-proto`);
  assert.ok(cases >= 200, `only ${cases} cases in ${MAX_MS} ms`);
  assert.ok(parsedCount > cases / 20, `only ${parsedCount} of ${cases} mutants parsed: the fuzz is too destructive`);
  assert.ok(compared > 0, 'nothing compared with the ts-proto decoder');
});
