// Append throughput of the WAL for 64 KiB payloads (default options), next
// to the same bytes written with a copy (concatenate, then writeSync) as a
// baseline. Run: node --import tsx test/wal/support/bench-append.ts [records]
// Writes about records x 64 KiB under the OS temp dir, removed at the end.
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import { Wal } from '../../../src/wal/index.js';
import { payloadFor } from './payload.js';

const RECORDS = Number(process.argv[2] ?? 4000);
const PAYLOAD = 64 * 1024;
const ROUNDS = 3;

const body = payloadFor(1, PAYLOAD);
const head = body.subarray(0, 64);
const tail = body.subarray(64);

function report(name: string, seconds: number): void {
  const mb = (RECORDS * PAYLOAD) / 1e6 / seconds;
  console.log(`${name.padEnd(44)} ${(RECORDS / seconds).toFixed(0).padStart(7)} appends/s ${mb.toFixed(0).padStart(6)} MB/s ${((seconds / RECORDS) * 1e6).toFixed(1).padStart(6)} µs/append`);
}

async function timeWal(name: string, payload: Uint8Array | Uint8Array[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-wal-bench-'));
  try {
    const wal = await Wal.open({ dir }, () => {});
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < RECORDS; i++) wal.append(1, payload);
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    await wal.close();
    report(name, seconds);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function timeCopyBaseline(): void {
  const dir = mkdtempSync(join(tmpdir(), 'strata-wal-bench-'));
  try {
    const fd = openSync(join(dir, 'f'), 'w');
    const header = Buffer.alloc(13);
    let pos = 0;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < RECORDS; i++) {
      header.writeUInt32BE(crc32c(body), 9);
      const frame = Buffer.concat([header, head, tail]);
      pos += writeSync(fd, frame, 0, frame.byteLength, pos);
    }
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    closeSync(fd);
    report('baseline: concat + CRC + writeSync', seconds);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function timeCrc(): void {
  const t0 = process.hrtime.bigint();
  let c = 0;
  for (let i = 0; i < RECORDS; i++) c = crc32c(body, c);
  report('CRC32C alone', Number(process.hrtime.bigint() - t0) / 1e9);
}

console.log(`${RECORDS} records of ${PAYLOAD} bytes, ${ROUNDS} rounds, Node ${process.version}`);
for (let r = 0; r < ROUNDS; r++) {
  await timeWal('Wal.append, one buffer', body);
  await timeWal('Wal.append, two parts (64 B + rest)', [head, tail]);
  timeCopyBaseline();
  timeCrc();
}
