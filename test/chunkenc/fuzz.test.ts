// Bytes that are not valid chunks: random, truncated, mutated, with a wrong
// count. Every decode must end (bounded by count and time here) with either
// samples or a ChunkDecodeError, never a trap or another error, and both
// implementations must come to the same answer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChunkDecodeError, XorIterator, codecs, threadCodec, type Samples, type XorCodec } from '../../src/chunkenc/index.js';
import { bitsOf, rng, wildSeries } from '../support/series.js';

const [wasm, ts] = codecs as [XorCodec, XorCodec];
const CASES = 20_000;
const BUDGET_MS = 20_000;
const SAFE = 2n ** 50n;

type Outcome = { ok: true; samples: Samples } | { ok: false; reason: string; sampleIndex: number };

function outcome(codec: XorCodec, bytes: Uint8Array): Outcome {
  try {
    return { ok: true, samples: codec.decode(bytes) };
  } catch (err) {
    assert.ok(err instanceof ChunkDecodeError, `${codec.name} threw ${(err as Error).stack}`);
    assert.match(err.message, /^invalid XOR chunk: .+ \(at sample \d+\)$/);
    return { ok: false, reason: err.reason, sampleIndex: err.sampleIndex };
  }
}

/** The TypeScript codec is exact only within ±2^52: compare timestamps where they stay well inside. */
function timestampsInRange(ts: BigInt64Array): boolean {
  let prev = 0n;
  for (const t of ts) {
    if (t > SAFE || t < -SAFE || t - prev > SAFE || prev - t > SAFE) return false;
    prev = t;
  }
  return true;
}

function mutate(next: () => number, chunk: Uint8Array): Uint8Array {
  const kind = Math.floor(next() * 5);
  let out = Uint8Array.from(chunk);
  if (kind === 0) out = out.subarray(0, Math.floor(next() * out.length));
  else if (kind === 1) for (let k = 1 + Math.floor(next() * 4); k > 0; k--) {
    const i = Math.floor(next() * out.length);
    out[i]! ^= 1 << Math.floor(next() * 8);
  } else if (kind === 2 && out.length >= 2) {
    const count = Math.max(0, ((out[0]! << 8) | out[1]!) + Math.floor(next() * 21) - 10);
    out[0] = count >> 8;
    out[1] = count & 0xff;
  } else if (kind === 3) {
    out = Uint8Array.from([...out, ...Array.from({ length: 1 + Math.floor(next() * 8) }, () => Math.floor(next() * 256))]);
  } else {
    const i = Math.floor(next() * out.length);
    out[i] = Math.floor(next() * 256);
  }
  return out;
}

test('random and mutated chunks decode or fail cleanly, the same in both codecs', () => {
  const next = rng(7);
  const started = Date.now();
  let errors = 0;
  let cases = 0;
  for (; cases < CASES && Date.now() - started < BUDGET_MS; cases++) {
    let bytes: Uint8Array;
    if (cases % 4 === 0) {
      bytes = Uint8Array.from({ length: Math.floor(next() * 200) }, () => Math.floor(next() * 256));
      if (bytes.length >= 2 && next() < 0.5) bytes[0] = 0;
    } else {
      const { timestamps, values } = wildSeries(next, 1 + Math.floor(next() * 150));
      bytes = mutate(next, wasm.encode(timestamps, values));
    }
    const a = outcome(wasm, bytes);
    const b = outcome(ts, bytes);
    if (!a.ok) errors++;
    if (a.ok && b.ok) {
      assert.deepEqual(bitsOf(b.samples.values), bitsOf(a.samples.values), `case ${cases}: values`);
      if (timestampsInRange(a.samples.timestamps)) assert.deepEqual(b.samples.timestamps, a.samples.timestamps, `case ${cases}: timestamps`);
    } else {
      assert.deepEqual(b, a, `case ${cases}: both codecs fail the same way`);
    }
  }
  assert.ok(cases >= 500, `only ${cases} cases ran in the time budget`);
  assert.ok(errors > cases / 4, `expected most mutations to be caught, got ${errors} of ${cases}`);
});

test('the iterator stops cleanly on corrupt chunks', () => {
  const next = rng(11);
  const it = new XorIterator(threadCodec());
  for (let i = 0; i < 1000; i++) {
    const { timestamps, values } = wildSeries(next, 1 + Math.floor(next() * 100));
    const bytes = mutate(next, wasm.encode(timestamps, values));
    it.reset(bytes);
    let steps = 0;
    while (it.next()) assert.ok(++steps <= 65535);
    const whole = outcome(wasm, bytes);
    if (whole.ok) assert.equal(it.err(), undefined);
    else assert.equal(it.err()?.reason, whole.reason);
  }
  it.close();
});

test('names what is wrong', () => {
  const chunk = wasm.encode(BigInt64Array.of(1000n, 2000n, 3000n), Float64Array.of(1, 2, 3));
  const cases: Array<[Uint8Array, string]> = [
    [Uint8Array.of(0), 'too-short'],
    [chunk.subarray(0, chunk.length - 1), 'truncated'],
    [Uint8Array.from([...chunk, 0]), 'trailing-bytes'],
    [Uint8Array.from([0, 4, ...chunk.subarray(2)]), 'truncated'],
    [Uint8Array.of(0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0), 'bad-varint'],
  ];
  for (const codec of codecs) {
    for (const [bytes, reason] of cases) {
      assert.throws(() => codec.decode(bytes), (err: unknown) => err instanceof ChunkDecodeError && err.reason === reason, `${codec.name}: ${reason}`);
    }
  }
});
