// src/grpc/stream-adapter.ts is the one place Strata relies on
// grpc-js internals (to write Series frames straight onto the HTTP/2
// stream). These tests fail loudly when the grpc-js in node_modules no
// longer has what it relies on, and check that every path (direct HTTP/2,
// batched, public API) carries the same messages, keeps flow control, ends
// with the status it is given and stops when the client goes away.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { probeGrpcInternals, seriesSinkFor, type GrpcSeriesSink, type SeriesPath } from '../../src/grpc/stream-adapter.js';

const require = createRequire(import.meta.url);
const installed = (require('@grpc/grpc-js/package.json') as { version: string }).version;
const pinned = (require('../../package.json') as { dependencies: Record<string, string> }).dependencies['@grpc/grpc-js'];

const raw = (b: Buffer): Buffer => b;
const METHOD = { path: '/adapter.Test/Stream', requestStream: false, responseStream: true, requestSerialize: raw, requestDeserialize: raw, responseSerialize: raw, responseDeserialize: raw };
const definition = { stream: METHOD };

type Call = grpc.ServerWritableStream<Buffer, Buffer>;
/** What the server does with a call: the request's first byte picks the scenario (see `scenarios`). */
type Scenario = (call: Call, sink: GrpcSeriesSink) => Promise<void>;

let server: grpc.Server;
let client: grpc.Client;
interface Seen { probe: ReturnType<typeof probeGrpcInternals>; path: SeriesPath; outcome?: string }
/** What the handler saw of the last call (read through current(): it changes behind the compiler's back). */
let seen: Seen | undefined;
const current = (): Seen | undefined => seen;
const scenarios: Scenario[] = [];
const paths: SeriesPath[] = ['http2', 'batched', 'public'];

/** The test frames: sizes from empty to past one 256 KiB batch, bytes that say where they belong. */
const frames: Buffer[] = [0, 1, 100, 1000, 70_000, 300_000, 5, 1 << 20, 17].map((size, i) => Buffer.alloc(size, i + 1));

function writeFrame(sink: GrpcSeriesSink, frame: Buffer): void {
  const b = sink.alloc(frame.length);
  frame.copy(b);
  sink.send(b);
}

before(async () => {
  server = new grpc.Server({ 'grpc.max_send_message_length': -1 });
  server.addService(definition as unknown as grpc.ServiceDefinition, {
    stream: (call: Call) => {
      const path = paths[call.request[0]!]!;
      const scenario = scenarios[call.request[1]!]!;
      const sink = seriesSinkFor(call as unknown as grpc.ServerWritableStream<unknown, Buffer>, path);
      seen = { probe: probeGrpcInternals(call as unknown as grpc.ServerWritableStream<unknown, Buffer>), path: sink.path };
      scenario(call, sink).then(
        () => call.end(),
        (err: unknown) => {
          seen!.outcome = `${(err as { kind?: string }).kind ?? 'error'}: ${(err as Error).message}`;
          if (!call.cancelled) call.emit('error', err);
        },
      );
    },
  });
  const port = await new Promise<number>((done, fail) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? fail(e) : done(p))));
  client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': -1 });
});

after(() => {
  client?.close();
  server?.forceShutdown();
});

interface Answer { messages: Buffer[]; code: number; details: string }

function call(path: SeriesPath, scenario: number, onCall?: (c: grpc.ClientReadableStream<Buffer>) => void): Promise<Answer> {
  return new Promise((resolve) => {
    const messages: Buffer[] = [];
    const c = client.makeServerStreamRequest(METHOD.path, raw, raw, Buffer.from([paths.indexOf(path), scenario]), new grpc.Metadata(), { deadline: Date.now() + 20_000 });
    let settled = false;
    const settle = (a: Answer): void => {
      if (!settled) {
        settled = true;
        resolve(a);
      }
    };
    c.on('data', (m: Buffer) => messages.push(m));
    c.on('error', (err: grpc.ServiceError) => settle({ messages, code: err.code, details: err.details }));
    c.on('end', () => settle({ messages, code: grpc.status.OK, details: '' }));
    onCall?.(c as grpc.ClientReadableStream<Buffer>);
  });
}

const ALL_FRAMES = scenarios.push(async (_call, sink) => {
  for (const f of frames) writeFrame(sink, f);
  sink.flush();
}) - 1;

const FRAMES_THEN_ERROR = scenarios.push(async (_call, sink) => {
  for (const f of frames.slice(0, 4)) writeFrame(sink, f);
  sink.flush();
  throw Object.assign(new Error('over the limit, after four frames'), { code: grpc.status.RESOURCE_EXHAUSTED, details: 'over the limit, after four frames' });
}) - 1;

/** 64 MiB in 64 KiB frames, waiting whenever the sink is blocked; reports how often it was. */
const LARGE = scenarios.push(async (_call, sink) => {
  let waits = 0;
  const frame = Buffer.alloc(64 * 1024, 7);
  for (let i = 0; i < 1024; i++) {
    writeFrame(sink, frame);
    if (i % 16 === 15) sink.flush();
    if (sink.blocked) {
      waits++;
      await sink.drained();
    }
  }
  sink.flush();
  seen!.outcome = `waited ${waits} times`;
}) - 1;

/**
 * 16 MiB, flushing every 16 frames and then letting the client read for a
 * while before looking at `blocked` (as store-api.ts yields between
 * slices): a 'drain' may come and go meanwhile, and drained() must not
 * wait for another one.
 */
const YIELDING = scenarios.push(async (_call, sink) => {
  let blocked = 0;
  const frame = Buffer.alloc(64 * 1024, 9);
  for (let i = 0; i < 256; i++) {
    writeFrame(sink, frame);
    if (i % 16 !== 15) continue;
    sink.flush();
    await new Promise((r) => setTimeout(r, 20));
    if (sink.blocked) {
      blocked++;
      await sink.drained();
    }
  }
  sink.flush();
  seen!.outcome = `blocked ${blocked} times`;
}) - 1;

describe('grpc-js internals the adapter relies on', () => {
  test(`the installed @grpc/grpc-js is the version package.json pins (${pinned})`, () => {
    assert.equal(
      installed,
      pinned,
      `@grpc/grpc-js ${installed} is installed, but src/grpc/stream-adapter.ts was checked against ${pinned}: ` +
        're-check the internals its file comment lists against the new version, then pin it in package.json',
    );
  });

  test(`a server-streaming call of grpc-js ${installed} has every internal of the direct HTTP/2 and batched paths`, async () => {
    seen = undefined;
    const a = await call('http2', ALL_FRAMES);
    assert.equal(a.code, grpc.status.OK, a.details);
    const s = current();
    assert.ok(s, 'the handler did not run');
    assert.deepEqual(
      s.probe,
      { http2: [], batched: [] },
      `grpc-js ${installed} lacks what src/grpc/stream-adapter.ts relies on: ${JSON.stringify(s.probe)}. ` +
        'Series answers would silently take a slower path: update the adapter for this version (or pin the one it was written for).',
    );
    assert.equal(s.path, 'http2', 'the direct path was not taken');
  });
});

describe('every path carries the same messages', () => {
  for (const path of paths) {
    test(`${path}: every frame arrives whole, in order, then OK`, async () => {
      const a = await call(path, ALL_FRAMES);
      assert.equal(seen!.path, path);
      assert.equal(a.code, grpc.status.OK, a.details);
      assert.equal(a.messages.length, frames.length);
      a.messages.forEach((m, i) => assert.ok(m.equals(frames[i]!), `message ${i}: ${m.length} bytes, want ${frames[i]!.length}`));
    });

    test(`${path}: an error after some frames ends the call with its status, after those frames`, async () => {
      const a = await call(path, FRAMES_THEN_ERROR);
      assert.equal(a.code, grpc.status.RESOURCE_EXHAUSTED);
      assert.equal(a.details, 'over the limit, after four frames');
      assert.deepEqual(a.messages.map((m) => m.length), frames.slice(0, 4).map((f) => f.length));
    });

    test(`${path}: a client that reads slowly pauses the answer (flow control) and gets all of it`, async () => {
      const a = await call(path, LARGE, (c) => {
        // Read nothing for a while: the server must see the sink blocked.
        c.pause();
        setTimeout(() => c.resume(), 300);
      });
      assert.equal(a.code, grpc.status.OK, a.details);
      assert.equal(a.messages.length, 1024);
      assert.ok(a.messages.every((m) => m.length === 64 * 1024 && m[0] === 7 && m[m.length - 1] === 7));
      assert.match(seen!.outcome ?? '', /^waited [1-9]\d* times$/, `the sink never blocked: ${seen!.outcome}`);
    });

    test(`${path}: drained() after the stream drained while the answer yielded resolves at once (no lost 'drain')`, async () => {
      const a = await call(path, YIELDING);
      assert.equal(a.code, grpc.status.OK, a.details);
      assert.equal(a.messages.length, 256);
      assert.match(current()?.outcome ?? '', /^blocked \d+ times$/);
    });

    test(`${path}: a client that cancels mid-answer stops it with a 'cancelled' error, nothing left waiting`, async () => {
      seen = undefined;
      await call(path, LARGE, (c) => {
        c.pause();
        const timer = setInterval(() => {
          if (current() !== undefined) {
            clearInterval(timer);
            setTimeout(() => c.cancel(), 100);
          }
        }, 10);
      });
      const deadline = Date.now() + 5_000;
      while (current()?.outcome === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const outcome = current()?.outcome ?? 'still waiting';
      assert.match(outcome, /^cancelled: /, `the answer did not stop: ${outcome}`);
    });
  }
});
