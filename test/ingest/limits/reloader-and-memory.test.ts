/**
 * The limits file reloader and the memory rule, in process: what each
 * does on every kind of change, with a recording log and a fake sampler.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { LimitsConfig } from '../../../src/ingest/limits/index.js';
import { LimitsReloader } from '../../../src/ingest/limits/limits-reloader.js';
import { MemoryPressure, pressureReason, type MemorySample } from '../../../src/ingest/limits/memory-pressure.js';

const dir = mkdtempSync(join(tmpdir(), 'strata-reloader-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function recordingLog() {
  const lines: Array<{ level: string; msg: string; o: Record<string, unknown> }> = [];
  return {
    lines,
    info: (o: object, msg: string) => lines.push({ level: 'info', msg, o: o as Record<string, unknown> }),
    error: (o: object, msg: string) => lines.push({ level: 'error', msg, o: o as Record<string, unknown> }),
  };
}

describe('limits file reloader', () => {
  it('applies a changed file, keeps the limits in place for a broken or missing one, telling each once', async () => {
    const file = join(dir, 'limits.yaml');
    const first = 'write:\n  default:\n    head_series_limit: 1\n';
    writeFileSync(file, first);
    const applied: LimitsConfig[] = [];
    const log = recordingLog();
    const r = new LimitsReloader(file, first, (c) => applied.push(c), log);

    await r.check();
    assert.equal(applied.length, 0, 'the same content applied again');
    assert.deepEqual(r.counters, { reloads: 0, failures: 0 });

    writeFileSync(file, 'write:\n  default:\n    head_series_limit: 2\n');
    await r.check();
    assert.equal(applied.length, 1);
    assert.equal(applied[0]!.defaults.headSeries, 2);

    writeFileSync(file, 'write:\n  default:\n    head_series_limits: 3\n');
    await r.check();
    await r.check();
    assert.equal(applied.length, 1);
    assert.deepEqual(r.counters, { reloads: 2, failures: 1 });
    const refused = log.lines.filter((l) => l.level === 'error');
    assert.equal(refused.length, 1, 'a broken file is told once');
    assert.match(String(refused[0]!.o.err), /write\.default\.head_series_limits: unknown key/);

    unlinkSync(file);
    await r.check();
    await r.check();
    assert.equal(log.lines.filter((l) => l.msg.startsWith('limits configuration file cannot be read')).length, 1);

    writeFileSync(file, 'write:\n  default:\n    head_series_limit: 4\n');
    await r.check();
    assert.equal(applied.length, 2);
    assert.equal(applied[1]!.defaults.headSeries, 4);
    assert.deepEqual(r.counters, { reloads: 3, failures: 1 });
  });
});

describe('memory rule', () => {
  const sample = (s: Partial<MemorySample>): MemorySample => ({ heapUsed: 100, heapLimit: 1000, anon: 0, ...s });

  it('is under pressure past either measure, and off at 0', () => {
    assert.equal(pressureReason({ heapRatio: 0.9, anonBytes: 0 }, sample({ heapUsed: 900 })), undefined);
    assert.match(pressureReason({ heapRatio: 0.9, anonBytes: 0 }, sample({ heapUsed: 901 }))!, /JavaScript heap .* more than the 0\.9 allowed/);
    assert.equal(pressureReason({ heapRatio: 0, anonBytes: 0 }, sample({ heapUsed: 1000, anon: 2 ** 40 })), undefined);
    assert.equal(pressureReason({ heapRatio: 0, anonBytes: 2 ** 30 }, sample({ anon: 2 ** 30 })), undefined);
    assert.match(pressureReason({ heapRatio: 0, anonBytes: 2 ** 30 }, sample({ anon: 2 ** 30 + 1 }))!, /1024 MiB of anonymous memory, more than the 1024 MiB allowed/);
  });

  it('tells the listener when pressure starts and when it passes, not at every sample', () => {
    let next = sample({});
    const told: Array<string | undefined> = [];
    const m = new MemoryPressure({ heapRatio: 0.5, anonBytes: 0 }, (why) => told.push(why), () => next);
    m.sample();
    assert.equal(m.reason, undefined);
    next = sample({ heapUsed: 600 });
    m.sample();
    m.sample();
    assert.match(m.reason!, /JavaScript heap/);
    next = sample({ heapUsed: 400 });
    m.sample();
    assert.equal(m.reason, undefined);
    assert.equal(told.length, 2);
    assert.match(told[0]!, /JavaScript heap/);
    assert.equal(told[1], undefined);
  });

  it('samples nothing when both measures are off', () => {
    let calls = 0;
    const m = new MemoryPressure({ heapRatio: 0, anonBytes: 0 }, () => {}, () => {
      calls++;
      return sample({});
    });
    m.start();
    m.stop();
    assert.equal(calls, 0);
    assert.equal(m.enabled, false);
  });
});
