import assert from 'node:assert/strict';
import { appendFileSync, cpSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { HEADER_SIZE } from '../../src/docstore/format.js';
import { frameRead, readFrame } from '../../src/docstore/frame.js';
import { encodeOpsFrame } from '../../src/docstore/ops-codec.js';
import { RecordsCorruptError } from '../../src/docstore/index.js';
import { contents, files, memoryLogger, openSmall, rmTemp, task, tempDir } from './support/store-fixtures.js';

/** Offsets of the frames in a closed segment file. */
function frameOffsets(path: string): number[] {
  const buf = readFileSync(path);
  const out: number[] = [];
  const fr = frameRead();
  for (let pos = HEADER_SIZE; readFrame(buf, pos, buf.length, fr).status === 'ok'; pos = fr.payloadEnd) out.push(pos);
  return out;
}

function flipByte(path: string, at: number): void {
  const buf = readFileSync(path);
  buf[at]! ^= 0x55;
  writeFileSync(path, buf);
}

/** A frame as the store writes it: a put of task `id`. */
function taskFrame(id: number): Buffer {
  return encodeOpsFrame([{ code: 1, id, json: Buffer.from(JSON.stringify(task(id))) }]).frame;
}

const corruptAt = (file: string, offset: number, detail: RegExp) => (err: unknown) =>
  err instanceof RecordsCorruptError && err.file === file && err.offset === offset && detail.test(err.message)
  && err.message.includes(file) && err.message.includes(`byte ${offset}`);

describe('record store: recovery', () => {
  const dirs: string[] = [];
  const fresh = () => { const d = tempDir(); dirs.push(d); return d; };
  after(() => dirs.forEach(rmTemp));

  /** A closed store with tasks 1..n (n = 130 spans several segments). */
  async function written(n: number) {
    const dir = fresh();
    const store = await openSmall(dir);
    for (let id = 1; id <= n; id++) await store.commit([{ op: 'put', collection: 'tasks', id, value: task(id) }]);
    const expected = contents(store);
    await store.close();
    const names = files(dir);
    return { dir, expected, last: join(dir, names[names.length - 1]!), first: join(dir, names[0]!) };
  }

  const torn: Array<[string, (path: string) => void]> = [
    ['an incomplete frame header', (p) => appendFileSync(p, Buffer.from([7, 7, 7, 7, 7]))],
    ['a length past the end of the file', (p) => appendFileSync(p, taskFrame(999).subarray(0, 20))],
    ['a failed checksum followed only by zeros', (p) => {
      const f = taskFrame(999);
      f[f.length - 3]! ^= 1;
      appendFileSync(p, Buffer.concat([f, Buffer.alloc(3000)]));
    }],
    ['a frame header that reached the disk before its payload', (p) => {
      const f = taskFrame(999);
      f.fill(0, 12);
      appendFileSync(p, Buffer.concat([f, Buffer.alloc(100)]));
    }],
  ];
  for (const [name, tear] of torn) {
    test(`truncates a torn tail of the last segment (${name}) and logs it`, async () => {
      const { dir, expected, last } = await written(130);
      const size = statSync(last).size;
      tear(last);
      const log = memoryLogger();
      const store = await openSmall(dir, { logger: log });
      assert.deepEqual(contents(store), expected);
      const line = log.lines.find((l) => /torn tail/.test(l.msg));
      assert.ok(line, 'a log line says so');
      assert.equal(line.level, 'warn');
      assert.deepEqual([line.obj.file, line.obj.offset], [last, size]);
      await store.close();
      assert.equal(statSync(last).size, size, 'the tail is gone');
    });
  }

  test('applies a commit of several ops whole or not at all when its record is torn', async () => {
    const dir = fresh();
    let store = await openSmall(dir, { segmentBytes: 1 << 20 });
    await store.commit([{ op: 'put', collection: 'discussions', id: 1, value: { id: 1, comments_count: 0 } }]);
    const expected = contents(store);
    await store.commit([
      { op: 'put', collection: 'comments', id: 1, value: { id: 1, discussion_id: 1, body: 'x'.repeat(300) } },
      { op: 'put', collection: 'discussions', id: 1, value: { id: 1, comments_count: 1 } },
      { op: 'put', collection: 'users', id: 1, value: { id: 1 } },
    ]);
    await store.close();
    const path = join(dir, files(dir)[0]!);
    const [, group] = frameOffsets(path);
    truncateSync(path, group! + 200);
    appendFileSync(path, Buffer.alloc(5000));
    store = await openSmall(dir);
    assert.deepEqual(contents(store), expected);
    await store.close();
  });

  test('opens what a kill -9 leaves (a preallocated file with a zero tail) without losing or logging anything', async () => {
    const dir = fresh();
    const store = await openSmall(dir);
    for (let id = 1; id <= 70; id++) await store.commit([{ op: 'put', collection: 'tasks', id, value: task(id) }]);
    const expected = contents(store);
    const copy = fresh();
    cpSync(dir, copy, { recursive: true });
    await store.close();
    const log = memoryLogger();
    const again = await openSmall(copy, { logger: log });
    assert.deepEqual(contents(again), expected);
    assert.deepEqual(log.lines.filter((l) => l.level !== 'info'), []);
    await again.close();
  });

  test('stops with an error naming file and offset for a corrupted record in the middle of the last segment', async () => {
    const { dir, last } = await written(130);
    const offsets = frameOffsets(last);
    assert.ok(offsets.length >= 3);
    flipByte(last, offsets[1]! + 12);
    await assert.rejects(openSmall(dir), corruptAt(last, offsets[1]!, /checksum mismatch/));
  });

  test('stops with an error for a corrupted record in an earlier segment, even its last record', async () => {
    const { dir, first } = await written(130);
    const offsets = frameOffsets(first);
    flipByte(first, offsets[offsets.length - 1]! + 10);
    await assert.rejects(openSmall(dir), corruptAt(first, offsets[offsets.length - 1]!, /checksum mismatch/));
  });

  test('does not mistake a damaged length that swallows good records for a torn tail', async () => {
    const { dir, last } = await written(130);
    const offsets = frameOffsets(last);
    appendFileSync(last, Buffer.alloc(20_000));
    // The first record now claims to run into the zeros, over the good ones.
    const buf = readFileSync(last);
    buf.writeUInt32LE(10_000, offsets[0]! + 4);
    writeFileSync(last, buf);
    await assert.rejects(openSmall(dir), corruptAt(last, offsets[0]!, /checksum mismatch/));
  });

  test('stops with an error for a damaged header, and names an unsupported version', async () => {
    const a = await written(130);
    flipByte(a.first, 20);
    await assert.rejects(openSmall(a.dir), corruptAt(a.first, 0, /header checksum mismatch/));
    const b = await written(10);
    const buf = readFileSync(b.first);
    buf.writeUInt16LE(7, 4);
    writeFileSync(b.first, buf);
    await assert.rejects(openSmall(b.dir), corruptAt(b.first, 0, /unsupported format version 7/));
  });

  test('removes a newest segment whose header never reached the disk, when nothing follows it', async () => {
    const { dir, expected } = await written(130);
    const torn = join(dir, '0000000099.seg');
    writeFileSync(torn, Buffer.alloc(4096));
    const log = memoryLogger();
    const store = await openSmall(dir, { logger: log });
    assert.deepEqual(contents(store), expected);
    assert.ok(!files(dir).includes('0000000099.seg'));
    assert.ok(log.lines.some((l) => l.level === 'warn' && /header was never written/.test(l.msg)));
    await store.close();
  });
});
