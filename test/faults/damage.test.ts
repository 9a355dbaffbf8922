/**
 * Damage on disk, run as an operator meets it: `strata serve` writes a
 * known set of samples, stops (or is killed), one spot is damaged, and it
 * starts again. It always starts, serves everything else, and loses
 * exactly the samples of the damaged spot, counted here against what was
 * written. `strata tsdb check` names the damage (exit 1) and passes a
 * clean directory (exit 0).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeReadResponse, postRead, postWrite, samples, type Series } from '../http/prometheus/support/prom-wire.js';
import { serve, stopAll, type Served } from '../http/prometheus/support/serve.js';

const bin = new URL('../../bin/strata.js', import.meta.url).pathname;
const tmp = mkdtempSync(join(tmpdir(), 'strata-damage-'));
after(async () => {
  await stopAll();
  rmSync(tmp, { recursive: true, force: true });
});
let n = 0;

const SERIES = 40;
/** A multiple of 2 h: block ranges start here. */
const T0 = 1_700_006_400_000;
const RECORD_SAMPLES = 2;

function request(t: number): Series[] {
  return Array.from({ length: SERIES }, (_, i) => ({ labels: [['__name__', 'd'], ['i', String(i)]] as const, samples: samples(1, t, 1, () => t / 1000) }));
}

/** Writes one request per time in `times`, every one acknowledged. */
async function writeAll(s: Served, times: readonly number[]): Promise<void> {
  for (const t of times) assert.equal((await postWrite(s.base, request(t))).status, 204);
}

/** Samples of "d" read back, by series: every one exactly once. */
async function countSamples(s: Served): Promise<number> {
  const res = await postRead(s.base, [{ matchers: [[0, '__name__', 'd']], start: T0 - 1, end: T0 + 86_400_000 }]);
  assert.equal(res.status, 200, res.body.toString());
  let total = 0;
  for (const series of decodeReadResponse(res.body)[0]!) {
    const ts = series.samples.map((x) => x.t);
    assert.equal(new Set(ts).size, ts.length, 'no sample twice');
    total += ts.length;
  }
  return total;
}

async function metric(s: Served, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${s.base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

function check(dataDir: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [bin, 'tsdb', 'check', dataDir], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: r.stdout + r.stderr };
}

function killed(s: Served): Promise<void> {
  s.child.kill('SIGKILL');
  return new Promise((resolve) => s.child.once('exit', () => resolve()));
}

/** The WAL's frames, in file order: [file, offset, type, payload bytes]. */
function walFrames(dataDir: string): Array<{ file: string; offset: number; type: number; length: number }> {
  const dir = join(dataDir, 'wal');
  const out: Array<{ file: string; offset: number; type: number; length: number }> = [];
  for (const name of readdirSync(dir).filter((f) => /^\d{8}$/.test(f)).sort()) {
    const b = readFileSync(join(dir, name));
    for (let at = 16; at + 13 <= b.length;) {
      const length = b.readUInt32BE(at + 1);
      out.push({ file: join(dir, name), offset: at, type: b[at]!, length });
      at += 13 + length;
    }
  }
  return out;
}

function flip(file: string, at: number): void {
  const b = readFileSync(file);
  b[at] = b[at]! ^ 0x5a;
  writeFileSync(file, b);
}

describe('damage on disk', () => {
  const times = Array.from({ length: 20 }, (_, k) => T0 + k * 15_000);
  const written = SERIES * times.length;

  it('a WAL record flipped in the middle of a segment: that record\'s samples are lost, no others', async () => {
    const dataDir = join(tmp, `d${n++}`);
    let s = await serve({ dataDir });
    await writeAll(s, times);
    await killed(s);
    const victim = walFrames(dataDir).filter((f) => f.type === RECORD_SAMPLES)[9]!;
    flip(victim.file, victim.offset + 13 + Math.floor(victim.length / 2));
    const before = check(dataDir);
    assert.equal(before.status, 1, before.out);
    assert.match(before.out, new RegExp(`DAMAGED ${victim.file} at byte ${victim.offset}`));
    s = await serve({ dataDir });
    assert.equal(await countSamples(s), written - SERIES);
    assert.equal(await metric(s, 'strata_wal_corruptions_total'), 1);
    // The replay read every segment, the damaged one included, and says so.
    const total = await metric(s, 'strata_wal_replay_segments_total');
    assert.ok(total !== undefined && total >= 1, `segments replayed: ${total}`);
    assert.equal(await metric(s, 'strata_wal_replay_segments_done'), total);
    await s.stop();
    // The stop checkpointed past the damaged segment: the next start finds nothing damaged, and loses nothing more.
    assert.equal(check(dataDir).status, 0);
    s = await serve({ dataDir });
    assert.equal(await countSamples(s), written - SERIES);
    await s.stop();
  });

  it('a torn WAL tail: the torn record\'s samples are lost, the tail is cut, and check calls it a repair, not damage', async () => {
    const dataDir = join(tmp, `d${n++}`);
    let s = await serve({ dataDir });
    await writeAll(s, times);
    await killed(s);
    const last = walFrames(dataDir).at(-1)!;
    assert.equal(last.type, RECORD_SAMPLES);
    truncateSync(last.file, last.offset + 13 + Math.floor(last.length / 2));
    const before = check(dataDir);
    assert.equal(before.status, 0, before.out);
    assert.match(before.out, /repaired at start: .*torn tail/);
    s = await serve({ dataDir });
    assert.equal(await countSamples(s), written - SERIES);
    assert.equal(await metric(s, 'strata_wal_corruptions_total'), 0);
    await s.stop();
  });

  /** Samples 10 min apart over 4 h 50 min: the head writes the first 2 h range, 12 samples a series, as a block. */
  async function withBlock(): Promise<{ dataDir: string; block: string; inBlock: number; total: number }> {
    const dataDir = join(tmp, `d${n++}`);
    const spread = Array.from({ length: 30 }, (_, k) => T0 + k * 600_000);
    const s = await serve({ dataDir });
    await writeAll(s, spread);
    const deadline = Date.now() + 20_000;
    const blocksDir = join(dataDir, 'blocks');
    while ((!existsSync(blocksDir) || readdirSync(blocksDir).filter((f) => /^[0-9A-Z]{26}$/.test(f)).length === 0) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(await s.stop(), 0);
    const block = readdirSync(blocksDir).find((f) => /^[0-9A-Z]{26}$/.test(f))!;
    assert.ok(block, 'a block was written');
    const meta = JSON.parse(readFileSync(join(blocksDir, block, 'meta.json'), 'utf8')) as { stats: { numSamples: number } };
    assert.equal(meta.stats.numSamples, SERIES * 12);
    return { dataDir, block: join(blocksDir, block), inBlock: meta.stats.numSamples, total: SERIES * spread.length };
  }

  const blockDamage: Array<[string, (block: string) => void, RegExp]> = [
    ['meta.json missing', (block) => rmSync(join(block, 'meta.json')), /meta\.json/],
    ['the index\'s magic number flipped', (block) => flip(join(block, 'index'), 0), /index/],
    ['a chunk file\'s header flipped', (block) => flip(join(block, 'chunks', '000001'), 0), /chunks/],
  ];
  for (const [what, damage, named] of blockDamage) {
    it(`a block with ${what} is moved to quarantine, everything else is served, and the head chunk files still holding its range lose nothing`, async () => {
      const { dataDir, block, total } = await withBlock();
      assert.equal(check(dataDir).status, 0);
      damage(block);
      const before = check(dataDir);
      assert.equal(before.status, 1, before.out);
      assert.match(before.out, /DAMAGED/);
      assert.match(before.out, named);
      const s = await serve({ dataDir });
      // Without the block, recovery no longer leaves out the head chunks of its range
      // (the head chunk file they are in is still there): nothing is lost.
      assert.equal(await countSamples(s), total);
      assert.equal(await metric(s, 'strata_blocks_quarantined'), 1);
      assert.ok(!existsSync(block));
      assert.equal(readdirSync(join(dataDir, 'quarantine')).length, 1);
      await s.stop();
    });
  }

  it('a quarantined block whose range the head no longer holds: exactly its samples are lost', async () => {
    const { dataDir, block, inBlock, total } = await withBlock();
    // The head's chunk files gone too (as after retention or a later truncation): only the block held that range.
    const s0 = await serve({ dataDir });
    await s0.stop();
    rmSync(join(dataDir, 'chunks_head'), { recursive: true, force: true });
    const s1 = await serve({ dataDir });
    const inHead = await countSamples(s1);
    await s1.stop();
    assert.ok(inHead >= inBlock);
    rmSync(join(block, 'meta.json'));
    const s = await serve({ dataDir });
    assert.equal(await countSamples(s), inHead - inBlock);
    assert.ok(inHead <= total);
    await s.stop();
  });

  it('an empty block directory is moved to quarantine and garbage files are ignored: nothing is lost', async () => {
    const { dataDir, total } = await withBlock();
    const empty = join(dataDir, 'blocks', '01ARZ3NDEKTSV4RRFFQ69G5FAV');
    mkdirSync(empty);
    writeFileSync(join(dataDir, 'blocks', 'garbage.txt'), 'not a block');
    writeFileSync(join(dataDir, 'blocks', '01ARZ3NDEKTSV4RRFFQ69G5FAW'), 'a file with a ULID name');
    const before = check(dataDir);
    assert.equal(before.status, 1, before.out);
    assert.match(before.out, /01ARZ3NDEKTSV4RRFFQ69G5FAV DAMAGED/);
    assert.match(before.out, /stray entries in blocks\/ \(ignored\): .*garbage\.txt/);
    const s = await serve({ dataDir });
    assert.equal(await countSamples(s), total);
    assert.equal(await metric(s, 'strata_blocks_quarantined'), 1);
    await s.stop();
  });
});
