import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChunkedReadResponse } from '../../src/gen/prometheus/remote.js';
import { decodeChunkedReadResponse, LabelMemo, type DecodedSeries } from '../../src/sidecar/chunked-read-decode.js';
import { FrameSplitter, type FrameFault } from '../../src/sidecar/remote-read-frames.js';
import { frame } from './support/frame.js';


interface Want {
  labels: string[];
  chunks: { minT: number; maxT: number; type: number; data: Uint8Array }[];
}

function message(series: Want[]): Uint8Array {
  return ChunkedReadResponse.encode({
    queryIndex: 0n,
    chunkedSeries: series.map((s) => ({
      labels: s.labels.flatMap((_, i) => (i % 2 === 0 ? [{ name: s.labels[i]!, value: s.labels[i + 1]! }] : [])),
      chunks: s.chunks.map((c) => ({ minTimeMs: BigInt(c.minT), maxTimeMs: BigInt(c.maxT), type: c.type, data: c.data })),
    })),
  }).finish();
}

const bytes = (n: number, seed: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

/** Three frames: a small one, one past 128 bytes (a 2-byte length), and one with two series (a histogram chunk, a negative time, a non-BMP label). */
const FRAMES: Want[][] = [
  [{ labels: ['__name__', 'up', 'job', 'node'], chunks: [{ minT: 1_699_999_200_000, maxT: 1_699_999_300_000, type: 1, data: bytes(40, 1) }] }],
  [{ labels: ['__name__', 'up', 'job', 'node'], chunks: [{ minT: 1_699_999_315_000, maxT: 1_699_999_400_000, type: 1, data: bytes(300, 2) }] }],
  [
    { labels: ['__name__', 'h', 'k', 'v'], chunks: [{ minT: -5000, maxT: -1, type: 2, data: bytes(20, 3) }] },
    { labels: ['__name__', 'x', 'emoji', '\u{1F600}'], chunks: [] },
  ],
];

function split(stream: Buffer, cuts: number[]): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const c of [...cuts, stream.length]) {
    // Each piece in a buffer of its own, as socket reads come.
    out.push(Buffer.from(stream.subarray(at, c)));
    at = c;
  }
  return out;
}

function readAll(pieces: Buffer[]): { series: DecodedSeries[]; surrogates: boolean; held: number } {
  const series: DecodedSeries[] = [];
  let surrogates = false;
  const memo = new LabelMemo();
  const s = new FrameSplitter((body) => {
    if (decodeChunkedReadResponse(body, (x) => series.push(x), memo)) surrogates = true;
  }, (fault: FrameFault) => {
    throw new Error(fault);
  });
  for (const p of pieces) s.push(p);
  return { series, surrogates, held: s.heldBytes };
}

const plain = (s: DecodedSeries[]) => s.map((x) => ({ labels: x.labels, chunks: x.chunks.map((c) => ({ minT: c.minT, maxT: c.maxT, type: c.encoding ?? 1, data: [...c.data] })) }));
const want = FRAMES.flat().map((s) => ({ labels: s.labels, chunks: s.chunks.map((c) => ({ ...c, data: [...c.data] })) }));

describe('remote read frames', () => {
  const stream = Buffer.concat(FRAMES.map((f) => frame(message(f))));

  it('reads the same series whatever the cut between two pieces', () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      const got = readAll(split(stream, [cut]));
      assert.equal(got.held, 0, `cut at ${cut}`);
      assert.deepEqual(plain(got.series), want, `cut at ${cut}`);
      assert.equal(got.surrogates, true);
    }
  });

  it('reads a stream that comes a byte at a time', () => {
    const got = readAll(split(stream, Array.from({ length: stream.length - 1 }, (_, i) => i + 1)));
    assert.deepEqual(plain(got.series), want);
  });

  it('hands on chunk bytes of a whole frame as views of its piece, not copies', () => {
    // A buffer of its own (a small Buffer.from shares Node's pool with any copy).
    const piece = Buffer.from(new Uint8Array(stream));
    const got = readAll([piece]);
    const data = got.series[0]!.chunks[0]!.data;
    assert.equal(data.buffer, piece.buffer);
    // A view sees a change to the piece; a copy would not.
    const at = data.byteOffset - piece.byteOffset;
    piece[at] = piece[at]! ^ 0xff;
    assert.equal(data[0], piece[at]);
  });

  it('says no surrogates when no label holds a character outside the BMP', () => {
    assert.equal(readAll([frame(message(FRAMES[0]!))]).surrogates, false);
  });

  it('holds the bytes of a frame the stream ends inside', () => {
    assert.equal(readAll([stream.subarray(0, stream.length - 3)]).held, stream.length - 3 - frame(message(FRAMES[0]!)).length - frame(message(FRAMES[1]!)).length);
  });

  it('refuses a frame whose checksum does not match', () => {
    const bad = Buffer.from(stream);
    bad[bad.length - 1]! ^= 0xff;
    assert.throws(() => readAll([bad]), /frame checksum mismatch/);
  });

  it('refuses a frame longer than the limit and a length of more than 64 bits', () => {
    assert.throws(() => readAll([Buffer.from([0x80, 0x80, 0x80, 0x80, 0x40, 0, 0, 0, 0])]), /frame past the limit/);
    assert.throws(() => readAll([Buffer.alloc(12, 0xff)]), /bad frame length/);
  });

  it('decodes labels right when a series repeats the bytes of the one before at other places, or in another field order', () => {
    const len = (b: Buffer) => Buffer.concat([Buffer.from([b.length]), b]);
    const field = (n: number, b: Buffer) => Buffer.concat([Buffer.from([(n << 3) | 2]), len(b)]);
    const label = (first: [number, string], second: [number, string]) => field(1, Buffer.concat([field(first[0], Buffer.from(first[1])), field(second[0], Buffer.from(second[1]))]));
    const series = (...labels: Buffer[]) => field(1, Buffer.concat(labels));
    // Name then value, then value then name (protobuf allows any order), then names and values of equal length swapped.
    const msg = Buffer.concat([
      series(label([1, 'aa'], [2, 'bb']), label([1, 'cc'], [2, 'dd'])),
      series(label([2, 'bb'], [1, 'aa']), label([2, 'dd'], [1, 'cc'])),
      series(label([1, 'bb'], [2, 'aa']), label([1, 'cc'], [2, 'xx'])),
    ]);
    const got: string[][] = [];
    const memo = new LabelMemo();
    decodeChunkedReadResponse(msg, (x) => got.push(x.labels), memo);
    decodeChunkedReadResponse(msg, (x) => got.push(x.labels), memo);
    const once = [['aa', 'bb', 'cc', 'dd'], ['aa', 'bb', 'cc', 'dd'], ['bb', 'aa', 'cc', 'xx']];
    assert.deepEqual(got, [...once, ...once]);
  });
});
