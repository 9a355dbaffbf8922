// kill -9 of a process appending to the WAL, at random moments, several
// times over one directory: every acknowledged record survives, and
// nothing appears that the child did not append.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { rng } from '../support/series.js';
import { Wal } from '../../src/wal/index.js';
import { memoryLog, tempDir } from './support/helpers.js';
import { CRASH_DATA, CRASH_RANGE, crashPayloadSize, payloadFor } from './support/payload.js';

const ROUNDS = 5;
/** Rounds, each a longer run, added while no checkpoint was caught: a loaded machine appends less before a kill. */
const EXTRA_ROUNDS = 6;
const writer = new URL('./support/crash-writer.ts', import.meta.url).pathname;
const root = new URL('../..', import.meta.url).pathname;

interface Round {
  /** The `next` the child reported after its replay. */
  ready: number;
  /** Highest sequence number acknowledged, -1 if none. */
  maxAcked: number;
  acks: number;
  /** Set if an ack was not the one after the previous. */
  outOfOrder: boolean;
  exit: NodeJS.Signals | number | null;
}

/** Runs the child until `killAfterMs` after it is ready, SIGKILLs it, and reads its acks. */
async function runChild(dir: string, ackFile: string, killAfterMs: number): Promise<Round> {
  writeFileSync(ackFile, '');
  const child = spawn(process.execPath, ['--import', 'tsx', writer, dir, ackFile], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const round: Round = { ready: -1, maxAcked: -1, acks: 0, outOfOrder: false, exit: null };
  let stderr = '';
  let stdout = '';
  let readyAt: (() => void) | undefined;
  const ready = new Promise<void>((resolve) => (readyAt = resolve));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    stdout += s;
    if (/^ready \d+\n/.test(stdout)) readyAt?.();
  });
  const closed = once(child, 'close');
  const killer = ready.then(() => sleep(killAfterMs)).then(() => child.kill('SIGKILL'));
  const [code, signal] = (await closed) as [number | null, NodeJS.Signals | null];
  readyAt?.(); // a child that died before ready: let the killer finish
  await killer;
  round.exit = signal ?? code;
  const readyLine = /^ready (\d+)\n/.exec(stdout);
  assert.ok(readyLine?.[1] !== undefined, `the child got ready (exit ${String(round.exit)}): ${stderr}`);
  round.ready = Number(readyLine[1]);
  for (const line of readFileSync(ackFile, 'utf8').split('\n')) {
    if (line === '') continue;
    const seq = Number(line);
    if (seq !== (round.maxAcked === -1 ? round.ready : round.maxAcked + 1)) round.outOfOrder = true;
    round.maxAcked = seq;
    round.acks++;
  }
  return round;
}

/** Replays in this process and returns the sequence numbers seen, checking each record's bytes. */
async function replaySeqs(dir: string): Promise<{ seqs: number[]; checkpointRanges: number; torn: number }> {
  const seqs: number[] = [];
  let checkpointRanges = 0;
  const log = memoryLog();
  const wal = await Wal.open({ dir, log, fsyncIntervalMs: 60_000 }, (type, payload) => {
    const b = Buffer.from(payload);
    if (type === CRASH_RANGE) {
      checkpointRanges++;
      for (let s = b.readUInt32BE(0); s < b.readUInt32BE(4); s++) seqs.push(s);
      return;
    }
    assert.equal(type, CRASH_DATA);
    const seq = b.readUInt32BE(0);
    assert.ok(b.equals(payloadFor(seq, crashPayloadSize(seq))), `record ${seq} holds exactly what the child appended`);
    seqs.push(seq);
  });
  await wal.close();
  return { seqs, checkpointRanges, torn: log.lines.filter((l) => l.level === 'warn').length };
}

describe('WAL under kill -9', () => {
  test('every acknowledged record is replayed, nothing else appears, across repeated kills', async (t) => {
    const seed = Date.now() >>> 0;
    const random = rng(seed);
    const dir = tempDir();
    const ackFile = join(tempDir('strata-wal-acks-'), 'acks');
    let maxAcked = -1;
    /** Highest record that must be there: acknowledged, or seen by an earlier replay. */
    let mustHave = -1;
    let checkpoints = 0;
    let repairs = 0;
    for (let r = 0; r < ROUNDS || (checkpoints === 0 && r < ROUNDS + EXTRA_ROUNDS); r++) {
      const killAfterMs = r < ROUNDS ? 20 + Math.floor(random() * 300) : 500 * (r - ROUNDS + 1);
      const round = await runChild(dir, ackFile, killAfterMs);
      const where = `seed ${seed}, round ${r}, kill after ${killAfterMs} ms`;
      assert.equal(round.exit, 'SIGKILL', where);
      assert.ok(!round.outOfOrder, `acks came in order (${where})`);
      assert.equal(round.ready, mustHave + 1, `the child replayed exactly what the last replay saw (${where})`);

      const { seqs, checkpointRanges, torn } = await replaySeqs(dir);
      checkpoints += checkpointRanges;
      repairs += torn;
      maxAcked = Math.max(maxAcked, round.maxAcked);
      mustHave = Math.max(mustHave, round.maxAcked);
      const top = seqs.length - 1;
      assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i), `records 0..n each once, in order (${where})`);
      assert.ok(top >= mustHave, `acknowledged up to ${mustHave}, replayed up to ${top} (${where})`);
      assert.ok(top <= mustHave + 1, `at most the one record appended but not yet acknowledged is extra (${where})`);
      mustHave = top;
    }
    t.diagnostic(`seed ${seed}: ${maxAcked + 1} records acknowledged, ${repairs} torn tails repaired`);
    assert.ok(maxAcked > 100, `the children appended enough to mean something (${maxAcked + 1} records)`);
    assert.ok(checkpoints > 0, 'checkpoints were exercised');
  });
});
