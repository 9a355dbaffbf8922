import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FRAME_HEADER_SIZE, HEADER_SIZE, MAGIC, MAX_PAYLOAD } from '../../src/docstore/format.js';
import { isZero, nonZeroEnd } from '../../src/encoding/bytes.js';
import { frameRead, hasFrameIn, readFrame, sealFrame } from '../../src/docstore/frame.js';
import { decodeHeader, encodeHeader } from '../../src/docstore/header.js';
import { decodeOps, encodeOpsFrame, type EncodedOp } from '../../src/docstore/ops-codec.js';
import { putUvarint, readUvarint, uvarintSize } from '../../src/encoding/varint.js';

describe('varint', () => {
  test('round-trips integers up to 2^53 - 1 in the bytes varintSize says', () => {
    for (const v of [0, 1, 127, 128, 300, 2 ** 32 - 1, 2 ** 32, 2 ** 49 + 7, Number.MAX_SAFE_INTEGER]) {
      const buf = new Uint8Array(10);
      const end = putUvarint(buf, 0, v);
      assert.equal(end, uvarintSize(v), `size of ${v}`);
      assert.deepEqual(readUvarint(buf, 0, end, { value: 0, next: 0 }), { value: v, next: end });
    }
  });

  test('rejects a varint cut short, too long, or past 2^53', () => {
    const out = { value: 0, next: 0 };
    assert.equal(readUvarint(Uint8Array.of(0x80, 0x80), 0, 2, out).next, -1);
    assert.equal(readUvarint(new Uint8Array(9).fill(0x80), 0, 9, out).next, -1);
    assert.equal(readUvarint(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), 0, 8, out).next, -1);
  });
});

describe('segment header', () => {
  const header = { flags: 1, num: 9, first: 3, last: 7, lastIds: [5, 0, 2 ** 40 + 3, 12] };

  test('is 64 bytes starting with the magic number and version 1, and round-trips', () => {
    const bytes = encodeHeader(header);
    assert.equal(bytes.length, HEADER_SIZE);
    assert.equal(bytes.subarray(0, 4).toString('latin1'), 'SRec');
    assert.equal(bytes.readUInt32LE(0), MAGIC);
    assert.equal(bytes.readUInt16LE(4), 1);
    assert.deepEqual(decodeHeader(bytes), header);
  });

  test('names what is wrong with a damaged header', () => {
    const bytes = encodeHeader(header);
    const bad = (mutate: (b: Buffer) => void) => { const b = Buffer.from(bytes); mutate(b); return decodeHeader(b); };
    assert.match(bad((b) => { b[0] = 0; }) as string, /magic/);
    assert.match(bad((b) => { b.writeUInt16LE(2, 4); }) as string, /version 2/);
    assert.match(bad((b) => { b[30]! ^= 1; }) as string, /checksum/);
  });
});

describe('frames', () => {
  const frameOf = (payload: string) => sealFrame(Buffer.concat([Buffer.alloc(FRAME_HEADER_SIZE), Buffer.from(payload)]));

  test('carry the payload length and a CRC32C of length and payload', () => {
    const f = frameOf('hello');
    assert.equal(f.readUInt32LE(4), 5);
    const out = readFrame(f, 0, f.length, frameRead());
    assert.equal(out.status, 'ok');
    assert.equal(f.subarray(out.payloadStart, out.payloadEnd).toString(), 'hello');
  });

  test('tell the end, a zero tail, a short header, a bad length, a frame past the end and a bad checksum apart', () => {
    const f = frameOf('hello');
    const fr = frameRead();
    assert.equal(readFrame(f, f.length, f.length, fr).status, 'end');
    assert.equal(readFrame(Buffer.alloc(20), 0, 20, fr).status, 'zero');
    assert.equal(readFrame(Buffer.from([1, 2, 3]), 0, 3, fr).status, 'short');
    const noLength = Buffer.from(f); noLength.writeUInt32LE(0, 4);
    assert.equal(readFrame(noLength, 0, f.length, fr).status, 'bad-length');
    const huge = Buffer.from(f); huge.writeUInt32LE(MAX_PAYLOAD + 1, 4);
    assert.equal(readFrame(huge, 0, f.length, fr).status, 'bad-length');
    assert.equal(readFrame(f, 0, f.length - 1, fr).status, 'past-end');
    const flipped = Buffer.from(f); flipped[f.length - 1]! ^= 0x20;
    assert.equal(readFrame(flipped, 0, f.length, fr).status, 'bad-crc');
    const longer = Buffer.from(f); longer.writeUInt32LE(4, 4);
    assert.equal(readFrame(longer, 0, f.length, fr).status, 'bad-crc', 'a changed length fails the checksum');
  });

  test('zero scans find zero runs and hidden frames', () => {
    const buf = Buffer.alloc(200_000);
    assert.ok(isZero(buf, 0, buf.length));
    buf[150_000] = 1;
    assert.ok(!isZero(buf, 0, buf.length));
    assert.ok(isZero(buf, 150_001, buf.length));
    assert.equal(nonZeroEnd(buf, 0, buf.length), 150_001);
    assert.equal(nonZeroEnd(buf, 150_001, buf.length), 150_001);
    const f = frameOf('x');
    f.copy(buf, 1000);
    assert.ok(hasFrameIn(buf, 0, 2000, buf.length));
    assert.ok(!hasFrameIn(buf, 1001, 2000, buf.length));
  });
});

describe('op payloads', () => {
  const ops: EncodedOp[] = [
    { code: 1, id: 1, json: Buffer.from('{"id":1}') },
    { code: 4, id: 2 ** 40, json: Buffer.from('{"é":"ü"}') },
    { code: 2, id: 300, json: undefined },
  ];

  test('encode ops in one frame and decode them in order, pointing at each JSON value', () => {
    const { frame, valueAt } = encodeOpsFrame(ops);
    const fr = readFrame(frame, 0, frame.length, frameRead());
    assert.equal(fr.status, 'ok');
    const seen: unknown[] = [];
    const problem = decodeOps(frame, fr.payloadStart, fr.payloadEnd, (code, put, id, at, len) => {
      seen.push([code, put, id, put ? frame.subarray(at, at + len).toString() : null, at]);
    });
    assert.equal(problem, undefined);
    assert.deepEqual(seen, [
      [1, true, 1, '{"id":1}', valueAt[0]],
      [4, true, 2 ** 40, '{"é":"ü"}', valueAt[1]],
      [2, false, 300, null, -1],
    ]);
  });

  test('reject a malformed payload before visiting any op', () => {
    const { frame } = encodeOpsFrame(ops);
    const payload = frame.subarray(FRAME_HEADER_SIZE);
    const check = (bytes: Buffer) => {
      let visited = 0;
      const problem = decodeOps(bytes, 0, bytes.length, () => { visited++; });
      assert.equal(visited, 0);
      return problem;
    };
    assert.match(check(Buffer.concat([payload, Buffer.of(0)]))!, /bytes after the last op/);
    assert.match(check(payload.subarray(0, payload.length - 1))!, /bad id|ends before/);
    const badKind = Buffer.from(payload); badKind[0] = 9;
    assert.match(check(badKind)!, /record kind 9/);
    const badTag = Buffer.from(payload); badTag[2] = 0x91;
    assert.match(check(badTag)!, /bad op tag 0x91/);
  });
});
